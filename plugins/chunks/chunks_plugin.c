/* The chunks plugin's entry point, config and the buffers it hands out. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunks_internal.h"

static atomic_int_fast64_t live_objects;

void chunks_live_add(int64_t delta) { atomic_fetch_add(&live_objects, delta); }

/* Test hook: objects handed out and not released yet; 0 once the host released everything,
 * negative if anything was released twice. */
LANCET_MEDIA_EXPORT int64_t lancet_chunks_live_objects(void) { return (int64_t)atomic_load(&live_objects); }

int chunks_fail(LancetMediaError* error, int code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error->message, sizeof(error->message), format, args);
  va_end(args);
  return code;
}

void chunks_put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

void chunks_put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t chunks_get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

static void release_buffer(LancetMediaBuffer* self) {
  free(self->private_data);
  self->release = NULL;
  chunks_live_add(-1);
}

void chunks_give_buffer(LancetMediaBuffer* out, void* data, uint64_t size) {
  out->data = (const uint8_t*)data;
  out->size = size;
  out->private_data = data;
  out->release = release_buffer;
  chunks_live_add(1);
}

static void release_ranges(LancetMediaRanges* self) {
  free(self->private_data);
  self->release = NULL;
  chunks_live_add(-1);
}

void chunks_give_ranges(LancetMediaRanges* out, LancetMediaRange* ranges, uint64_t count) {
  out->ranges = ranges;
  out->count = count;
  out->private_data = ranges;
  out->release = release_ranges;
  chunks_live_add(1);
}

static const struct {
  const char* name;
  ChunksMisbehave mode;
} kMisbehaviours[] = {
    {"wrong_major", CHUNKS_WRONG_MAJOR},
    {"bad_name", CHUNKS_BAD_NAME},
    {"fail_ingest", CHUNKS_FAIL_INGEST},
    {"ignore_sink", CHUNKS_IGNORE_SINK},
    {"null_write", CHUNKS_NULL_WRITE},
    {"huge_stream_info", CHUNKS_HUGE_STREAM_INFO},
    {"no_release", CHUNKS_NO_RELEASE},
    {"fail_plan", CHUNKS_FAIL_PLAN},
    {"unterminated_error", CHUNKS_UNTERMINATED_ERROR},
    {"range_past_end", CHUNKS_RANGE_PAST_END},
    {"overflow", CHUNKS_OVERFLOW},
    {"huge_count", CHUNKS_HUGE_COUNT},
    {"total_too_big", CHUNKS_TOTAL_TOO_BIG},
    {"null_ranges", CHUNKS_NULL_RANGES},
    {"fail_decode", CHUNKS_FAIL_DECODE},
    {"huge_output", CHUNKS_HUGE_OUTPUT},
    {"huge_metadata", CHUNKS_HUGE_METADATA},
};

static int equals(const uint8_t* text, uint64_t size, const char* word) {
  return size == strlen(word) && memcmp(text, word, size) == 0;
}

/* Parses a decimal number of at most `max`; the whole text must be digits. */
static int parse_number(const uint8_t* text, uint64_t size, uint64_t max, uint64_t* out) {
  if (size == 0 || size > 20) return 0;
  uint64_t v = 0;
  for (uint64_t i = 0; i < size; ++i) {
    if (text[i] < '0' || text[i] > '9') return 0;
    uint64_t digit = (uint64_t)(text[i] - '0');
    if (v > (max - digit) / 10) return 0;
    v = v * 10 + digit;
  }
  *out = v;
  return 1;
}

static int parse_item(const uint8_t* item, uint64_t size, ChunksConfig* out, LancetMediaError* error) {
  const uint8_t* eq = memchr(item, '=', size);
  if (eq == NULL)
    return chunks_fail(error, LANCET_MEDIA_EINVAL, "config item '%.*s' is not key=value", (int)size, item);
  uint64_t key_size = (uint64_t)(eq - item);
  const uint8_t* value = eq + 1;
  uint64_t value_size = size - key_size - 1;
  if (equals(item, key_size, "chunk_size")) {
    if (!parse_number(value, value_size, CHUNKS_MAX_CHUNK_SIZE, &out->chunk_size) || out->chunk_size == 0) {
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "chunk_size must be a number from 1 to %llu, got '%.*s'",
                         (unsigned long long)CHUNKS_MAX_CHUNK_SIZE, (int)value_size, value);
    }
    return LANCET_MEDIA_OK;
  }
  if (equals(item, key_size, "blob_type")) {
    uint64_t v = 0;
    if (!parse_number(value, value_size, 255, &v)) {
      return chunks_fail(error, LANCET_MEDIA_EINVAL, "blob_type must be a number from 0 to 255, got '%.*s'",
                         (int)value_size, value);
    }
    out->blob_type = (uint8_t)v;
    return LANCET_MEDIA_OK;
  }
  if (equals(item, key_size, "misbehave")) {
    for (size_t i = 0; i < sizeof(kMisbehaviours) / sizeof(kMisbehaviours[0]); ++i) {
      if (equals(value, value_size, kMisbehaviours[i].name)) {
        out->misbehave = kMisbehaviours[i].mode;
        return LANCET_MEDIA_OK;
      }
    }
    return chunks_fail(error, LANCET_MEDIA_EINVAL, "unknown misbehave mode '%.*s'", (int)value_size, value);
  }
  return chunks_fail(error, LANCET_MEDIA_EINVAL, "unknown config key '%.*s'", (int)key_size, item);
}

int chunks_parse_config(const uint8_t* config, uint64_t size, ChunksConfig* out, LancetMediaError* error) {
  out->chunk_size = CHUNKS_DEFAULT_CHUNK_SIZE;
  out->blob_type = LANCET_MEDIA_BLOB_CHUNKS;
  out->misbehave = CHUNKS_OK;
  if (size > 4096)
    return chunks_fail(error, LANCET_MEDIA_EINVAL, "config has %llu bytes, at most 4096", (unsigned long long)size);
  uint64_t start = 0;
  while (start < size) {
    const uint8_t* semi = memchr(config + start, ';', size - start);
    uint64_t end = semi == NULL ? size : (uint64_t)(semi - config);
    if (end > start) {
      int rc = parse_item(config + start, end - start, out, error);
      if (rc != LANCET_MEDIA_OK) return rc;
    }
    start = end + 1;
  }
  return LANCET_MEDIA_OK;
}

static void release_plugin(LancetMediaPlugin* self) {
  free(self->private_data);
  self->release = NULL;
  chunks_live_add(-1);
}

LANCET_MEDIA_EXPORT int lancet_media_plugin_init(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                 const uint8_t* config, uint64_t config_size, LancetMediaPlugin* out,
                                                 LancetMediaError* error) {
  (void)host_abi_minor;
  if (host_abi_major != LANCET_MEDIA_ABI_MAJOR) {
    return chunks_fail(error, LANCET_MEDIA_ENOTSUP, "built for media plugin ABI %d, the host speaks %u",
                       LANCET_MEDIA_ABI_MAJOR, (unsigned)host_abi_major);
  }
  ChunksConfig parsed;
  int rc = chunks_parse_config(config, config_size, &parsed, error);
  if (rc != LANCET_MEDIA_OK) return rc;
  ChunksConfig* state = malloc(sizeof(ChunksConfig));
  if (state == NULL) return chunks_fail(error, LANCET_MEDIA_ENOMEM, "out of memory");
  *state = parsed;
  chunks_live_add(1);
  out->abi_major = parsed.misbehave == CHUNKS_WRONG_MAJOR ? LANCET_MEDIA_ABI_MAJOR + 1 : LANCET_MEDIA_ABI_MAJOR;
  out->abi_minor = LANCET_MEDIA_ABI_MINOR;
  out->release = release_plugin;
  out->private_data = state;
  out->name = parsed.misbehave == CHUNKS_BAD_NAME ? "chunks plugin!" : "chunks";
  out->blob_type = parsed.blob_type;
  out->ingest_start = chunks_ingest_start;
  out->plan = chunks_plan;
  out->decode = chunks_decode;
  return LANCET_MEDIA_OK;
}
