/* Plan and decode: a request names chunks; plan asks for their bytes, decode concatenates them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunks_internal.h"

static const ChunksConfig* config_of(const LancetMediaPlugin* self) { return self->private_data; }

/* The broken plans of the misbehave modes; returns -1 for a mode that is not about plan. */
static int misbehave_plan(ChunksMisbehave mode, uint64_t blob_size, LancetMediaRanges* out, LancetMediaError* error) {
  if (mode == CHUNKS_FAIL_PLAN) return chunks_fail(error, LANCET_MEDIA_ECORRUPT, "misbehave=fail_plan refuses to plan");
  if (mode == CHUNKS_UNTERMINATED_ERROR) {
    memset(error->message, 'x', sizeof(error->message));
    return LANCET_MEDIA_EINTERNAL;
  }
  if (mode == CHUNKS_NULL_RANGES) {
    out->count = 3;
    return LANCET_MEDIA_OK;
  }
  LancetMediaRange* r = malloc(2 * sizeof(LancetMediaRange));
  if (r == NULL) return chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  uint64_t count = 1;
  switch (mode) {
    case CHUNKS_RANGE_PAST_END:
      r[0].offset = blob_size == 0 ? 0 : blob_size - 1;
      r[0].length = 2;
      break;
    case CHUNKS_OVERFLOW:
      r[0].offset = UINT64_MAX - 1;
      r[0].length = 16;
      break;
    case CHUNKS_HUGE_COUNT:
      r[0].offset = 0;
      r[0].length = 0;
      count = 1ull << 40;
      break;
    case CHUNKS_TOTAL_TOO_BIG:
      r[0].offset = r[1].offset = 0;
      r[0].length = r[1].length = blob_size == 0 ? 1 : blob_size;
      count = 2;
      break;
    default:
      free(r);
      return -1;
  }
  chunks_give_ranges(out, r, count);
  return LANCET_MEDIA_OK;
}

int chunks_plan(const LancetMediaPlugin* self, const uint8_t* stream_info, uint64_t stream_info_size,
                const uint8_t* entries, uint64_t entries_size, const uint8_t* request, uint64_t request_size,
                uint64_t blob_size, LancetMediaRanges* out, LancetMediaError* error) {
  int rc = misbehave_plan(config_of(self)->misbehave, blob_size, out, error);
  if (rc >= 0) return rc;
  ChunksLayout layout;
  rc = chunks_parse_layout(stream_info, stream_info_size, entries, entries_size, &layout, error);
  if (rc != LANCET_MEDIA_OK) return rc;
  if (blob_size != layout.total_size) {
    return chunks_fail(error, LANCET_MEDIA_ECORRUPT, "the stored blob has %llu bytes, stream_info says %llu",
                       (unsigned long long)blob_size, (unsigned long long)layout.total_size);
  }
  uint64_t* indices = NULL;
  uint64_t count = 0;
  rc = chunks_parse_request(request, request_size, &layout, &indices, &count, error);
  if (rc != LANCET_MEDIA_OK) return rc;
  LancetMediaRange* ranges = malloc(count * sizeof(LancetMediaRange));
  if (ranges == NULL) rc = chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  for (uint64_t i = 0; i < count && rc == LANCET_MEDIA_OK; ++i)
    rc = chunks_chunk_range(&layout, indices[i], &ranges[i], error);
  free(indices);
  if (rc != LANCET_MEDIA_OK) {
    free(ranges);
    return rc;
  }
  chunks_give_ranges(out, ranges, count);
  return LANCET_MEDIA_OK;
}

/* A given range, sorted by offset; best is the index (in sorted order, at or before this
 * one) of the range reaching furthest, so one binary search finds a covering range. */
typedef struct Given {
  uint64_t offset;
  uint64_t end;
  const uint8_t* data;
  uint64_t best;
} Given;

static int by_offset(const void* a, const void* b) {
  const Given* x = a;
  const Given* y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The bytes of [offset, end) from the given ranges, or NULL if no one range covers them. */
static const uint8_t* find_bytes(const Given* given, uint64_t n, uint64_t offset, uint64_t end) {
  uint64_t lo = 0;
  uint64_t hi = n; /* first index with given[i].offset > offset */
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (given[mid].offset <= offset) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return NULL;
  const Given* g = &given[given[lo - 1].best];
  return g->end >= end ? g->data + (offset - g->offset) : NULL;
}

static int sort_given(const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t n, Given** out,
                      LancetMediaError* error) {
  Given* given = malloc((n == 0 ? 1 : n) * sizeof(Given));
  if (given == NULL)
    return chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory for %llu ranges", (unsigned long long)n);
  for (uint64_t i = 0; i < n; ++i) {
    if (ranges[i].length > UINT64_MAX - ranges[i].offset || (ranges[i].length > 0 && range_data[i] == NULL)) {
      free(given);
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "range %llu is invalid", (unsigned long long)i);
    }
    given[i] = (Given){ranges[i].offset, ranges[i].offset + ranges[i].length, range_data[i], 0};
  }
  qsort(given, n, sizeof(Given), by_offset);
  for (uint64_t i = 0; i < n; ++i) {
    given[i].best = i > 0 && given[given[i - 1].best].end > given[i].end ? given[i - 1].best : i;
  }
  *out = given;
  return LANCET_MEDIA_OK;
}

/* {"chunks":[a,b,...],"bytes":N} */
static char* metadata_json(const uint64_t* indices, uint64_t count, uint64_t bytes, uint64_t* size) {
  uint64_t cap = 48 + count * 21;
  char* text = malloc(cap);
  if (text == NULL) return NULL;
  uint64_t n = (uint64_t)snprintf(text, cap, "{\"chunks\":[");
  for (uint64_t i = 0; i < count; ++i) {
    n += (uint64_t)snprintf(text + n, cap - n, i == 0 ? "%llu" : ",%llu", (unsigned long long)indices[i]);
  }
  n += (uint64_t)snprintf(text + n, cap - n, "],\"bytes\":%llu}", (unsigned long long)bytes);
  *size = n;
  return text;
}

static int misbehave_decode(ChunksMisbehave mode, LancetMediaDecoded* out, LancetMediaError* error) {
  if (mode == CHUNKS_FAIL_DECODE)
    return chunks_fail(error, LANCET_MEDIA_ENOTSUP, "misbehave=fail_decode refuses to decode");
  if (mode != CHUNKS_HUGE_OUTPUT && mode != CHUNKS_HUGE_METADATA) return -1;
  uint8_t* data = calloc(1, 16);
  char* meta = malloc(2);
  if (data == NULL || meta == NULL) {
    free(data);
    free(meta);
    return chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  }
  memcpy(meta, "{}", 2);
  chunks_give_buffer(&out->data, data, mode == CHUNKS_HUGE_OUTPUT ? 1ull << 40 : 16);
  chunks_give_buffer(&out->metadata, meta, mode == CHUNKS_HUGE_METADATA ? 1ull << 40 : 2);
  return LANCET_MEDIA_OK;
}

int chunks_decode(const LancetMediaPlugin* self, const uint8_t* request, uint64_t request_size,
                  const uint8_t* stream_info, uint64_t stream_info_size, const uint8_t* entries, uint64_t entries_size,
                  const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count,
                  LancetMediaDecoded* out, LancetMediaError* error) {
  int rc = misbehave_decode(config_of(self)->misbehave, out, error);
  if (rc >= 0) return rc;
  ChunksLayout layout;
  rc = chunks_parse_layout(stream_info, stream_info_size, entries, entries_size, &layout, error);
  if (rc != LANCET_MEDIA_OK) return rc;
  uint64_t* indices = NULL;
  uint64_t count = 0;
  rc = chunks_parse_request(request, request_size, &layout, &indices, &count, error);
  if (rc != LANCET_MEDIA_OK) return rc;
  Given* given = NULL;
  LancetMediaRange* chunks = malloc(count * sizeof(LancetMediaRange));
  const uint8_t** sources = malloc(count * sizeof(const uint8_t*));
  if (chunks == NULL || sources == NULL) rc = chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  if (rc == LANCET_MEDIA_OK) rc = sort_given(ranges, range_data, range_count, &given, error);
  /* Every chunk is found in given memory before anything is allocated for the output:
   * distinct chunks inside given bytes bound the total by bytes that exist. */
  uint64_t total = 0;
  for (uint64_t i = 0; i < count && rc == LANCET_MEDIA_OK; ++i) {
    rc = chunks_chunk_range(&layout, indices[i], &chunks[i], error);
    if (rc != LANCET_MEDIA_OK) break;
    sources[i] = find_bytes(given, range_count, chunks[i].offset, chunks[i].offset + chunks[i].length);
    if (sources[i] == NULL) {
      rc = chunks_fail(error, LANCET_MEDIA_EINVAL, "chunk %llu (bytes %llu+%llu) is not inside the given ranges",
                       (unsigned long long)indices[i], (unsigned long long)chunks[i].offset,
                       (unsigned long long)chunks[i].length);
    }
    total += chunks[i].length;
  }
  uint8_t* data = rc == LANCET_MEDIA_OK ? malloc(total == 0 ? 1 : total) : NULL;
  if (rc == LANCET_MEDIA_OK && data == NULL) rc = chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  for (uint64_t i = 0, written = 0; i < count && rc == LANCET_MEDIA_OK; ++i) {
    memcpy(data + written, sources[i], chunks[i].length);
    written += chunks[i].length;
  }
  uint64_t meta_size = 0;
  char* meta = rc == LANCET_MEDIA_OK ? metadata_json(indices, count, total, &meta_size) : NULL;
  if (rc == LANCET_MEDIA_OK && meta == NULL) rc = chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  free(indices);
  free(chunks);
  free(sources);
  free(given);
  if (rc != LANCET_MEDIA_OK) {
    free(data);
    return rc;
  }
  chunks_give_buffer(&out->data, data, total);
  chunks_give_buffer(&out->metadata, meta, meta_size);
  return LANCET_MEDIA_OK;
}
