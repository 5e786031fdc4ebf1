/* The chunks plugin's shared pieces: its config, its layout and the buffers it hands out. */
#ifndef LANCET_PLUGINS_CHUNKS_INTERNAL_H_
#define LANCET_PLUGINS_CHUNKS_INTERNAL_H_

#include <stdint.h>

#include "lancet/media_plugin.h"

/* stream_info (32 bytes, little-endian): magic "LCHK", u32 version, u64 chunk_size,
 * u64 total_size, u64 chunk_count. */
#define CHUNKS_MAGIC "LCHK"
#define CHUNKS_VERSION 1u
#define CHUNKS_INFO_SIZE 32u
#define CHUNKS_DEFAULT_CHUNK_SIZE 65536u
#define CHUNKS_MAX_CHUNK_SIZE (1ull << 30)
/* 2^23 entries of 8 bytes is 64 MiB, the host's default bound on entries. */
#define CHUNKS_MAX_CHUNKS (1ull << 23)
/* One request names at most this many chunks: one range each, the host's default bound. */
#define CHUNKS_MAX_REQUEST_CHUNKS 65536u

/* Test-only ways to break the ABI contract on purpose (config "misbehave=NAME"). */
typedef enum ChunksMisbehave {
  CHUNKS_OK = 0,
  CHUNKS_WRONG_MAJOR,
  CHUNKS_BAD_NAME,
  CHUNKS_FAIL_INGEST,
  CHUNKS_IGNORE_SINK,
  CHUNKS_NULL_WRITE,
  CHUNKS_HUGE_STREAM_INFO,
  CHUNKS_NO_RELEASE,
  CHUNKS_FAIL_PLAN,
  CHUNKS_UNTERMINATED_ERROR,
  CHUNKS_RANGE_PAST_END,
  CHUNKS_OVERFLOW,
  CHUNKS_HUGE_COUNT,
  CHUNKS_TOTAL_TOO_BIG,
  CHUNKS_NULL_RANGES,
  CHUNKS_FAIL_DECODE,
  CHUNKS_HUGE_OUTPUT,
  CHUNKS_HUGE_METADATA,
} ChunksMisbehave;

typedef struct ChunksConfig {
  uint64_t chunk_size;
  uint8_t blob_type;
  ChunksMisbehave misbehave;
} ChunksConfig;

/* A validated stream_info plus its entries. */
typedef struct ChunksLayout {
  uint64_t chunk_size;
  uint64_t total_size;
  uint64_t chunk_count;
  const uint8_t* entries;
} ChunksLayout;

/* Writes a formatted message into error and returns code. */
int chunks_fail(LancetMediaError* error, int code, const char* format, ...) __attribute__((format(printf, 3, 4)));

/* Parses "key=value;key=value" config text. */
int chunks_parse_config(const uint8_t* config, uint64_t size, ChunksConfig* out, LancetMediaError* error);

/* Hands out a malloc'd block as a buffer (ownership moves to the buffer). */
void chunks_give_buffer(LancetMediaBuffer* out, void* data, uint64_t size);
/* Hands out malloc'd ranges (ownership moves to out). */
void chunks_give_ranges(LancetMediaRanges* out, LancetMediaRange* ranges, uint64_t count);
/* Counts every object handed out and not yet released (tests read it). */
void chunks_live_add(int64_t delta);

void chunks_put_u32(uint8_t* p, uint32_t v);
void chunks_put_u64(uint8_t* p, uint64_t v);
uint64_t chunks_get_u64(const uint8_t* p);

/* Checks stream_info and entries against each other and against themselves. */
int chunks_parse_layout(const uint8_t* info, uint64_t info_size, const uint8_t* entries, uint64_t entries_size,
                        ChunksLayout* out, LancetMediaError* error);
/* The byte range of chunk `index` (< chunk_count); fails if its entry is wrong. */
int chunks_chunk_range(const ChunksLayout* layout, uint64_t index, LancetMediaRange* out, LancetMediaError* error);
/* Parses "chunks=..." into ascending chunk indices (malloc'd *out, *count of them). */
int chunks_parse_request(const uint8_t* request, uint64_t size, const ChunksLayout* layout, uint64_t** out,
                         uint64_t* count, LancetMediaError* error);

int chunks_ingest_start(const LancetMediaPlugin* self, LancetMediaIngest* out, LancetMediaError* error);
int chunks_plan(const LancetMediaPlugin* self, const uint8_t* stream_info, uint64_t stream_info_size,
                const uint8_t* entries, uint64_t entries_size, const uint8_t* request, uint64_t request_size,
                uint64_t blob_size, LancetMediaRanges* out, LancetMediaError* error);
int chunks_decode(const LancetMediaPlugin* self, const uint8_t* request, uint64_t request_size,
                  const uint8_t* stream_info, uint64_t stream_info_size, const uint8_t* entries, uint64_t entries_size,
                  const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count,
                  LancetMediaDecoded* out, LancetMediaError* error);

#endif /* LANCET_PLUGINS_CHUNKS_INTERNAL_H_ */
