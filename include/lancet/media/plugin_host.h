// The media plugin host: loads a plugin (include/lancet/media_plugin.h) and checks
// everything it returns before the rest of Lancet sees it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"

namespace lancet::media {

/// Which plugin to load: an explicit library path (it must contain '/'; bare names are
/// refused so nothing is looked up on a search path) and its opaque config bytes.
struct PluginSpec {
  std::string library;
  std::vector<uint8_t> config;
};

/// Bounds on what a plugin may return; anything past them is an error, never allocated.
struct HostLimits {
  uint64_t max_ranges = 65536;                   // ranges one plan returns, or one decode receives
  uint64_t max_stream_info_bytes = 16ULL << 20;  // stream_info from ingest
  uint64_t max_entries_bytes = 64ULL << 20;      // entries from ingest
  uint64_t max_output_bytes = 1ULL << 30;        // decoded output
  uint64_t max_metadata_bytes = 1ULL << 20;      // decode metadata text
};

/// What ingest produced besides the stored bytes. stream_info and entries are opaque.
struct IngestResult {
  BufferPtr stream_info;
  BufferPtr entries;
  uint64_t stored_bytes = 0;  // bytes given to the output callbacks in total
};

/// Receives stored bytes as the plugin produces them; a non-OK status stops the ingest.
/// The span is valid only during the call.
using ByteSink = std::function<Status(std::span<const uint8_t>)>;

/// \brief The ingest of one blob. Not thread-safe.
///
/// Push any number of times, then Finish once. After an error, or after Finish, every
/// further call fails. Destroying a session releases the plugin's state.
class IngestSession {
 public:
  virtual ~IngestSession() = default;
  /// Feeds source bytes; the plugin's output bytes go to `out` as they are produced.
  virtual Status Push(std::span<const uint8_t> source, const ByteSink& out) = 0;
  /// Ends the source: the remaining output goes to `out`, then stream_info and entries.
  virtual Result<IngestResult> Finish(const ByteSink& out) = 0;
};

/// Decode's output: bytes plus the plugin's metadata text (e.g. JSON), both opaque.
struct DecodedOutput {
  BufferPtr data;
  std::string metadata;
};

struct LoadedPlugin;

/// \brief A loaded media plugin. Thread-safe.
///
/// The library stays loaded while this object, any session it started or any buffer it
/// returned lives. Every error names the library and the call that failed.
class MediaPlugin {
 public:
  /// Loads spec.library with dlopen and initialises it with spec.config. Errors:
  /// InvalidArgument for a bare library name, a library that is not a plugin or has
  /// another major ABI version; NotFound for a missing file; the plugin's own error if
  /// its init fails.
  static Result<std::shared_ptr<MediaPlugin>> Load(const PluginSpec& spec, const HostLimits& limits = {});

  const std::string& name() const { return name_; }
  uint8_t blob_type() const { return blob_type_; }
  const std::string& library() const { return library_; }

  /// Starts the ingest of one blob.
  Result<std::unique_ptr<IngestSession>> StartIngest() const;

  /// The byte ranges of a stored blob of `blob_size` bytes that `request` needs, as the
  /// plugin returned them (neither sorted nor merged). Checked: within the blob, at most
  /// max_ranges, and adding up to at most blob_size bytes.
  Result<std::vector<io::ByteRange>> Plan(std::span<const uint8_t> stream_info, std::span<const uint8_t> entries,
                                          std::span<const uint8_t> request, uint64_t blob_size) const;

  /// Decodes `request` from the bytes of `ranges` (bytes[i] holds ranges[i]): the ranges
  /// Plan returned, or ranges covering them. REQUIRES nothing: mismatched spans or sizes
  /// are InvalidArgument.
  Result<DecodedOutput> Decode(std::span<const uint8_t> request, std::span<const uint8_t> stream_info,
                               std::span<const uint8_t> entries, std::span<const io::ByteRange> ranges,
                               std::span<const BufferPtr> bytes) const;

 private:
  MediaPlugin(std::shared_ptr<const LoadedPlugin> loaded, const HostLimits& limits);

  std::shared_ptr<const LoadedPlugin> loaded_;
  HostLimits limits_;
  std::string library_;
  std::string name_;
  uint8_t blob_type_ = 0;
};

}  // namespace lancet::media
