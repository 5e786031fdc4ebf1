/* Parsing what the host hands back: stream_info, entries and requests. All of it may be
 * hostile (stored bytes, user requests), so every length is checked before use. */
#include <stdlib.h>
#include <string.h>

#include "chunks_internal.h"

int chunks_parse_layout(const uint8_t* info, uint64_t info_size, const uint8_t* entries, uint64_t entries_size,
                        ChunksLayout* out, LancetMediaError* error) {
  if (info_size != CHUNKS_INFO_SIZE || memcmp(info, CHUNKS_MAGIC, 4) != 0) {
    return chunks_fail(error, LANCET_MEDIA_ECORRUPT, "stream_info is not a chunks header (%llu bytes)",
                       (unsigned long long)info_size);
  }
  uint32_t version = (uint32_t)info[4] | (uint32_t)info[5] << 8 | (uint32_t)info[6] << 16 | (uint32_t)info[7] << 24;
  if (version != CHUNKS_VERSION) {
    return chunks_fail(error, LANCET_MEDIA_ENOTSUP, "stream_info version %u, this plugin reads %u", version,
                       CHUNKS_VERSION);
  }
  out->chunk_size = chunks_get_u64(info + 8);
  out->total_size = chunks_get_u64(info + 16);
  out->chunk_count = chunks_get_u64(info + 24);
  out->entries = entries;
  if (out->chunk_size == 0 || out->chunk_size > CHUNKS_MAX_CHUNK_SIZE) {
    return chunks_fail(error, LANCET_MEDIA_ECORRUPT, "stream_info has chunk_size %llu",
                       (unsigned long long)out->chunk_size);
  }
  uint64_t expected = out->total_size / out->chunk_size + (out->total_size % out->chunk_size != 0);
  if (out->chunk_count != expected) {
    return chunks_fail(error, LANCET_MEDIA_ECORRUPT, "stream_info has %llu chunks, %llu bytes need %llu",
                       (unsigned long long)out->chunk_count, (unsigned long long)out->total_size,
                       (unsigned long long)expected);
  }
  if (out->chunk_count > entries_size / 8 || entries_size != out->chunk_count * 8) {
    return chunks_fail(error, LANCET_MEDIA_ECORRUPT, "entries have %llu bytes, %llu chunks need %llu",
                       (unsigned long long)entries_size, (unsigned long long)out->chunk_count,
                       (unsigned long long)(out->chunk_count <= UINT64_MAX / 8 ? out->chunk_count * 8 : UINT64_MAX));
  }
  return LANCET_MEDIA_OK;
}

int chunks_chunk_range(const ChunksLayout* layout, uint64_t index, LancetMediaRange* out, LancetMediaError* error) {
  /* index < chunk_count = ceil(total / chunk_size), so index * chunk_size < total. */
  uint64_t start = index * layout->chunk_size;
  if (chunks_get_u64(layout->entries + 8 * index) != start) {
    return chunks_fail(error, LANCET_MEDIA_ECORRUPT, "entry %llu is %llu, expected %llu", (unsigned long long)index,
                       (unsigned long long)chunks_get_u64(layout->entries + 8 * index), (unsigned long long)start);
  }
  uint64_t left = layout->total_size - start;
  out->offset = start;
  out->length = left < layout->chunk_size ? left : layout->chunk_size;
  return LANCET_MEDIA_OK;
}

/* Reads a decimal number at text[*pos], advancing *pos. */
static int read_number(const uint8_t* text, uint64_t size, uint64_t* pos, uint64_t* out) {
  uint64_t v = 0;
  uint64_t start = *pos;
  while (*pos < size && text[*pos] >= '0' && text[*pos] <= '9') {
    uint64_t digit = (uint64_t)(text[*pos] - '0');
    if (v > (UINT64_MAX - digit) / 10) return 0;
    v = v * 10 + digit;
    ++*pos;
  }
  *out = v;
  return *pos > start;
}

/* One pass over "chunks=..." items; stores the indices when `indices` is not NULL. */
static int walk_request(const uint8_t* request, uint64_t size, const ChunksLayout* layout, uint64_t* indices,
                        uint64_t* count, LancetMediaError* error) {
  static const char kPrefix[] = "chunks=";
  const uint64_t prefix_size = sizeof(kPrefix) - 1;
  if (size < prefix_size || memcmp(request, kPrefix, prefix_size) != 0) {
    return chunks_fail(error, LANCET_MEDIA_EINVAL, "request must start with 'chunks='");
  }
  uint64_t n = 0;
  uint64_t previous = 0;
  uint64_t pos = prefix_size;
  for (;;) {
    uint64_t first = 0;
    uint64_t last = 0;
    if (!read_number(request, size, &pos, &first)) {
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "request: expected a chunk number at byte %llu",
                         (unsigned long long)pos);
    }
    last = first;
    if (pos < size && request[pos] == '-') {
      ++pos;
      if (!read_number(request, size, &pos, &last) || last < first) {
        return chunks_fail(error, LANCET_MEDIA_EINVAL, "request: bad chunk range ending at byte %llu",
                           (unsigned long long)pos);
      }
    }
    if (n > 0 && first <= previous) {
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "request: chunk %llu is not after chunk %llu",
                         (unsigned long long)first, (unsigned long long)previous);
    }
    if (last >= layout->chunk_count) {
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "request: chunk %llu is past the last chunk (%llu chunks)",
                         (unsigned long long)last, (unsigned long long)layout->chunk_count);
    }
    if (last - first >= CHUNKS_MAX_REQUEST_CHUNKS - n) {
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "request names more than %u chunks", CHUNKS_MAX_REQUEST_CHUNKS);
    }
    for (uint64_t c = first; c <= last; ++c, ++n) {
      if (indices != NULL) indices[n] = c;
    }
    previous = last;
    if (pos == size) break;
    if (request[pos] != ',') {
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "request: unexpected byte at %llu", (unsigned long long)pos);
    }
    ++pos;
  }
  *count = n;
  return LANCET_MEDIA_OK;
}

int chunks_parse_request(const uint8_t* request, uint64_t size, const ChunksLayout* layout, uint64_t** out,
                         uint64_t* count, LancetMediaError* error) {
  /* Counted first, so the array is exactly as large as the request. */
  int rc = walk_request(request, size, layout, NULL, count, error);
  if (rc != LANCET_MEDIA_OK) return rc;
  *out = malloc(*count * sizeof(uint64_t));
  if (*out == NULL) return chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  rc = walk_request(request, size, layout, *out, count, error);
  if (rc != LANCET_MEDIA_OK) free(*out);
  return rc;
}
