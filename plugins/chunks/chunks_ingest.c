/* Ingest: the stored stream is the source itself; entries are the chunk start offsets. */
#include <stdlib.h>
#include <string.h>

#include "chunks_internal.h"

typedef struct IngestState {
  ChunksConfig config;
  uint64_t total;
} IngestState;

/* What misbehave=no_release hands out: bytes the host cannot know the lifetime of. */
static const uint8_t kStaticEntries[8];

static int ingest_push(LancetMediaIngest* self, const uint8_t* data, uint64_t size, LancetMediaSink sink,
                       LancetMediaError* error) {
  IngestState* state = self->private_data;
  switch (state->config.misbehave) {
    case CHUNKS_FAIL_INGEST:
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "misbehave=fail_ingest refuses every push");
    case CHUNKS_NULL_WRITE:
      return sink.write(sink.context, NULL, 16) == 0 ? LANCET_MEDIA_OK : LANCET_MEDIA_ESINK;
    default:
      break;
  }
  if (size > UINT64_MAX - state->total) return chunks_fail(error, LANCET_MEDIA_EINVAL, "source larger than 2^64 bytes");
  if (size > 0 && sink.write(sink.context, data, size) != 0) {
    if (state->config.misbehave == CHUNKS_IGNORE_SINK) return LANCET_MEDIA_OK;
    return chunks_fail(error, LANCET_MEDIA_ESINK, "the host refused %llu bytes", (unsigned long long)size);
  }
  state->total += size;
  return LANCET_MEDIA_OK;
}

static int ingest_finish(LancetMediaIngest* self, LancetMediaSink sink, LancetMediaBuffer* stream_info,
                         LancetMediaBuffer* entries, LancetMediaError* error) {
  (void)sink;
  IngestState* state = self->private_data;
  uint64_t chunk_size = state->config.chunk_size;
  uint64_t count = state->total / chunk_size + (state->total % chunk_size != 0);
  if (count > CHUNKS_MAX_CHUNKS) {
    return chunks_fail(error, LANCET_MEDIA_EINVAL,
                       "%llu bytes make %llu chunks of %llu bytes, at most %llu: raise chunk_size",
                       (unsigned long long)state->total, (unsigned long long)count, (unsigned long long)chunk_size,
                       (unsigned long long)CHUNKS_MAX_CHUNKS);
  }
  uint8_t* info = malloc(CHUNKS_INFO_SIZE);
  uint8_t* offsets = malloc(count == 0 ? 1 : count * 8);
  if (info == NULL || offsets == NULL) {
    free(info);
    free(offsets);
    return chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory for %llu entries", (unsigned long long)count);
  }
  memcpy(info, CHUNKS_MAGIC, 4);
  chunks_put_u32(info + 4, CHUNKS_VERSION);
  chunks_put_u64(info + 8, chunk_size);
  chunks_put_u64(info + 16, state->total);
  chunks_put_u64(info + 24, count);
  for (uint64_t i = 0; i < count; ++i) chunks_put_u64(offsets + 8 * i, i * chunk_size);

  if (state->config.misbehave == CHUNKS_HUGE_STREAM_INFO) {
    chunks_give_buffer(stream_info, info, 1ull << 40);
  } else {
    chunks_give_buffer(stream_info, info, CHUNKS_INFO_SIZE);
  }
  if (state->config.misbehave == CHUNKS_NO_RELEASE) {
    free(offsets);
    entries->data = kStaticEntries;
    entries->size = sizeof(kStaticEntries);
  } else {
    chunks_give_buffer(entries, offsets, count * 8);
  }
  return LANCET_MEDIA_OK;
}

static void ingest_release(LancetMediaIngest* self) {
  free(self->private_data);
  self->release = NULL;
  chunks_live_add(-1);
}

int chunks_ingest_start(const LancetMediaPlugin* self, LancetMediaIngest* out, LancetMediaError* error) {
  IngestState* state = malloc(sizeof(IngestState));
  if (state == NULL) return chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  state->config = *(const ChunksConfig*)self->private_data;
  state->total = 0;
  chunks_live_add(1);
  out->push = ingest_push;
  out->finish = ingest_finish;
  out->release = ingest_release;
  out->private_data = state;
  return LANCET_MEDIA_OK;
}
