/* The media plugin C ABI: how Lancet talks to a codec-aware plugin loaded at run time.
 *
 * A plugin is a shared library exporting one C symbol, LANCET_MEDIA_PLUGIN_INIT_SYMBOL, of
 * type LancetMediaPluginInitFn. The host loads it with dlopen from an explicit path (never
 * a search by bare name) and calls the init function once with opaque config bytes; the
 * plugin fills a LancetMediaPlugin: its name, blob type, ABI version and a table of
 * function pointers. The core treats everything a plugin produces (stream_info, entries,
 * requests, decoded output) as opaque bytes; the plugin owns their meaning.
 *
 * The three operations:
 *   ingest  source bytes, pushed in chunks -> the byte stream to store (through a sink,
 *           as it is produced), then stream_info (plugin metadata) and entries (a
 *           position index, e.g. GOP byte offsets).
 *   plan    (stream_info, entries, request, stored blob size) -> byte ranges of the stored
 *           blob the request needs.
 *   decode  (request, stream_info, entries, the bytes of some ranges) -> output bytes plus
 *           metadata (e.g. a small JSON text).
 *
 * Rules every plugin follows:
 *  - Entry points never unwind: a C++ plugin catches every exception at the boundary.
 *  - Every function returns LANCET_MEDIA_OK (0) or another LANCET_MEDIA_E* code; on failure
 *    it writes a NUL-terminated message into error->message (truncated to fit). The host
 *    zero-fills the error before every call.
 *  - Output structs are zero-filled by the host before the call. Buffers the plugin hands
 *    out carry a release callback in the style of the Arrow C Data Interface: the host
 *    calls it exactly once, possibly from another thread, possibly after moving the struct
 *    with a plain copy (so the plugin must not keep pointers to the struct itself). A
 *    buffer with size 0 may have a NULL release. On failure the plugin leaves its outputs
 *    zeroed or releases them itself; the host still releases any output whose release is
 *    non-NULL.
 *  - Input pointers are borrowed for the duration of the call; data may be NULL when its
 *    size is 0. Everything the host passes in may be hostile (stored bytes come from
 *    datasets); the plugin validates stream_info, entries, requests and range bytes.
 *  - The host validates everything the plugin returns (ranges inside the blob, bounded
 *    counts and sizes) before reading it.
 *  - plan, decode and ingest_start may run concurrently from several threads on one
 *    plugin; a LancetMediaIngest is used by one thread at a time.
 *
 * Versioning: a different major version is refused by the host. Minor versions only
 * append fields to the end of structs the plugin fills; the host reads no field a
 * plugin's minor version does not declare. The first four fields of LancetMediaPlugin keep
 * their place in every major version so a host can release a plugin it refuses. */
#ifndef LANCET_MEDIA_PLUGIN_H_
#define LANCET_MEDIA_PLUGIN_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LANCET_MEDIA_ABI_MAJOR 1
#define LANCET_MEDIA_ABI_MINOR 0

/* The one symbol a plugin library exports. */
#define LANCET_MEDIA_PLUGIN_INIT_SYMBOL "lancet_media_plugin_init"

#if defined(_WIN32)
#define LANCET_MEDIA_EXPORT __declspec(dllexport)
#else
#define LANCET_MEDIA_EXPORT __attribute__((visibility("default")))
#endif

/* Return codes. The host maps them to its own error kinds; unknown non-zero codes are
 * treated as internal errors. */
#define LANCET_MEDIA_OK 0
#define LANCET_MEDIA_EINVAL 1    /* bad config or request */
#define LANCET_MEDIA_ECORRUPT 2  /* bad stream_info, entries or blob bytes */
#define LANCET_MEDIA_ENOTSUP 3   /* valid but unsupported (codec, feature) */
#define LANCET_MEDIA_ENOMEM 4    /* out of memory */
#define LANCET_MEDIA_ESINK 5     /* the host's sink refused bytes */
#define LANCET_MEDIA_EINTERNAL 6 /* a bug or an unexpected failure in the plugin */

/* Well-known blob types; other values are allowed. */
#define LANCET_MEDIA_BLOB_UNKNOWN 0
#define LANCET_MEDIA_BLOB_VIDEO 1
#define LANCET_MEDIA_BLOB_AUDIO 2
#define LANCET_MEDIA_BLOB_IMAGE 3
#define LANCET_MEDIA_BLOB_CHUNKS 4 /* fixed-size byte chunks (the codec-free chunks plugin) */

#define LANCET_MEDIA_ERROR_MESSAGE_SIZE 512

/* A failure's text, filled by the plugin. Fixed size so nothing needs releasing. */
typedef struct LancetMediaError {
  char message[LANCET_MEDIA_ERROR_MESSAGE_SIZE];
} LancetMediaError;

/* Bytes owned by the plugin until release is called. */
typedef struct LancetMediaBuffer {
  const uint8_t* data;
  uint64_t size;
  void (*release)(struct LancetMediaBuffer* self);
  void* private_data;
} LancetMediaBuffer;

/* A byte range [offset, offset + length) of the stored blob. */
typedef struct LancetMediaRange {
  uint64_t offset;
  uint64_t length;
} LancetMediaRange;

/* The ranges a plan needs, owned by the plugin until release is called. */
typedef struct LancetMediaRanges {
  const LancetMediaRange* ranges;
  uint64_t count;
  void (*release)(struct LancetMediaRanges* self);
  void* private_data;
} LancetMediaRanges;

/* What decode produces: output bytes and metadata bytes, released independently. */
typedef struct LancetMediaDecoded {
  LancetMediaBuffer data;
  LancetMediaBuffer metadata;
} LancetMediaDecoded;

/* Where ingest writes the bytes to store, as it produces them. write returns 0, or
 * non-zero when the host refuses the bytes: the plugin then stops and returns
 * LANCET_MEDIA_ESINK. The sink is valid only during the call it is passed to. */
typedef struct LancetMediaSink {
  int (*write)(void* context, const uint8_t* data, uint64_t size);
  void* context;
} LancetMediaSink;

/* The ingest of one blob. Not thread-safe. The host calls push zero or more times, then
 * finish at most once, then release exactly once (also after a failure). */
typedef struct LancetMediaIngest {
  /* Feeds the next source bytes; any output produced so far may go to the sink. */
  int (*push)(struct LancetMediaIngest* self, const uint8_t* data, uint64_t size, LancetMediaSink sink,
              LancetMediaError* error);
  /* Ends the source: writes the remaining output to the sink, then hands out stream_info
   * and entries. */
  int (*finish)(struct LancetMediaIngest* self, LancetMediaSink sink, LancetMediaBuffer* stream_info,
                LancetMediaBuffer* entries, LancetMediaError* error);
  void (*release)(struct LancetMediaIngest* self);
  void* private_data;
} LancetMediaIngest;

/* A loaded plugin, filled by the init function. name must stay valid until release. */
typedef struct LancetMediaPlugin {
  /* These four fields keep their place in every major version. */
  uint32_t abi_major;
  uint32_t abi_minor;
  void (*release)(struct LancetMediaPlugin* self);
  void* private_data;

  /* Printable ASCII [A-Za-z0-9_.-], 1 to 64 characters, NUL-terminated. */
  const char* name;
  /* One of LANCET_MEDIA_BLOB_* or another value. */
  uint8_t blob_type;

  /* Starts the ingest of one blob: fills *out. */
  int (*ingest_start)(const struct LancetMediaPlugin* self, LancetMediaIngest* out, LancetMediaError* error);
  /* Plans the byte ranges of a stored blob of blob_size bytes that `request` needs. */
  int (*plan)(const struct LancetMediaPlugin* self, const uint8_t* stream_info, uint64_t stream_info_size,
              const uint8_t* entries, uint64_t entries_size, const uint8_t* request, uint64_t request_size,
              uint64_t blob_size, LancetMediaRanges* out, LancetMediaError* error);
  /* Decodes `request` from range_count ranges of the stored blob: range_data[i] holds
   * ranges[i].length bytes read at ranges[i].offset. The ranges are those plan returned,
   * or ranges that cover them (a caller may merge neighbours). */
  int (*decode)(const struct LancetMediaPlugin* self, const uint8_t* request, uint64_t request_size,
                const uint8_t* stream_info, uint64_t stream_info_size, const uint8_t* entries, uint64_t entries_size,
                const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count,
                LancetMediaDecoded* out, LancetMediaError* error);
} LancetMediaPlugin;

/* The init function. host_abi_major/minor let a plugin refuse a host it cannot serve. The
 * config bytes are borrowed for the call only. On success *out is filled and the host
 * calls out->release once when done with the plugin; on failure the plugin leaves *out
 * zeroed and writes error. */
typedef int (*LancetMediaPluginInitFn)(uint32_t host_abi_major, uint32_t host_abi_minor, const uint8_t* config,
                                       uint64_t config_size, LancetMediaPlugin* out, LancetMediaError* error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LANCET_MEDIA_PLUGIN_H_ */
