#include "media/ingest_session.h"

#include <limits>

namespace lancet::media {
namespace {

// What the sink callback reaches through its context pointer. The first refusal sticks:
// a plugin that ignores it still ends the ingest with that error.
struct SinkState {
  const LoadedPlugin* loaded;
  const ByteSink* out;
  const char* call;
  uint64_t* stored;
  Status status;
};

int WriteToSink(void* context, const uint8_t* data, uint64_t size) noexcept {
  auto* sink = static_cast<SinkState*>(context);
  if (!sink->status.ok()) return 1;
  if (size == 0) return 0;
  if (data == nullptr) {
    sink->status = sink->loaded->Broken(sink->call, "wrote " + std::to_string(size) + " bytes from a NULL pointer");
    return 1;
  }
  if (size > std::numeric_limits<uint64_t>::max() - *sink->stored) {
    sink->status = sink->loaded->Broken(sink->call, "wrote more than 2^64 bytes");
    return 1;
  }
  // No exception may unwind through the plugin's frames.
  try {
    sink->status = (*sink->out)(std::span<const uint8_t>(data, static_cast<size_t>(size)));
  } catch (...) {
    sink->status = Status::Internal(sink->loaded->Where(sink->call) + ": the output callback threw");
  }
  if (!sink->status.ok()) return 1;
  *sink->stored += size;
  return 0;
}

class PluginIngestSession final : public IngestSession {
 public:
  PluginIngestSession(std::shared_ptr<const LoadedPlugin> loaded, const HostLimits& limits,
                      const LancetMediaIngest& raw)
      : loaded_(std::move(loaded)), limits_(limits), raw_(raw) {}
  PluginIngestSession(const PluginIngestSession&) = delete;
  PluginIngestSession& operator=(const PluginIngestSession&) = delete;
  ~PluginIngestSession() override {
    if (raw_.release != nullptr) raw_.release(&raw_);
  }

  Status Push(std::span<const uint8_t> source, const ByteSink& out) override {
    RETURN_IF_ERROR(CheckOpen("ingest push"));
    SinkState sink{loaded_.get(), &out, "ingest push", &stored_, Status::OK()};
    LancetMediaError error{};
    int code = raw_.push(&raw_, source.data(), source.size(), LancetMediaSink{WriteToSink, &sink}, &error);
    return Settle(code, error, sink);
  }

  Result<IngestResult> Finish(const ByteSink& out) override {
    RETURN_IF_ERROR(CheckOpen("ingest finish"));
    done_ = true;
    SinkState sink{loaded_.get(), &out, "ingest finish", &stored_, Status::OK()};
    LancetMediaBuffer raw_info{};
    LancetMediaBuffer raw_entries{};
    LancetMediaError error{};
    int code = raw_.finish(&raw_, LancetMediaSink{WriteToSink, &sink}, &raw_info, &raw_entries, &error);
    // Owned before anything is checked, so every exit releases both.
    auto info = std::make_shared<PluginBuffer>(loaded_, &raw_info);
    auto entries = std::make_shared<PluginBuffer>(loaded_, &raw_entries);
    RETURN_IF_ERROR(Settle(code, error, sink));
    IngestResult result;
    ASSIGN_OR_RETURN(result.stream_info, PluginBuffer::Share(std::move(info), limits_.max_stream_info_bytes,
                                                             "ingest finish", "stream_info"));
    ASSIGN_OR_RETURN(result.entries,
                     PluginBuffer::Share(std::move(entries), limits_.max_entries_bytes, "ingest finish", "entries"));
    result.stored_bytes = stored_;
    return result;
  }

 private:
  Status CheckOpen(std::string_view call) const {
    if (failed_) return Status::InvalidArgument(loaded_->Where(call) + ": the ingest already failed");
    if (done_) return Status::InvalidArgument(loaded_->Where(call) + ": the ingest is already finished");
    return Status::OK();
  }

  // The sink's error wins over the plugin's code: it says why the plugin stopped.
  Status Settle(int code, const LancetMediaError& error, const SinkState& sink) {
    Status status = !sink.status.ok()         ? sink.status
                    : code != LANCET_MEDIA_OK ? loaded_->Failure(sink.call, code, error)
                                              : Status::OK();
    if (!status.ok()) failed_ = true;
    return status;
  }

  std::shared_ptr<const LoadedPlugin> loaded_;
  HostLimits limits_;
  LancetMediaIngest raw_;
  uint64_t stored_ = 0;
  bool failed_ = false;
  bool done_ = false;
};

}  // namespace

Result<std::unique_ptr<IngestSession>> StartPluginIngest(std::shared_ptr<const LoadedPlugin> loaded,
                                                         const HostLimits& limits) {
  LancetMediaIngest raw{};
  LancetMediaError error{};
  int code = loaded->plugin.ingest_start(&loaded->plugin, &raw, &error);
  auto session = std::make_unique<PluginIngestSession>(loaded, limits, raw);
  if (code != LANCET_MEDIA_OK) return loaded->Failure("ingest start", code, error);
  if (raw.push == nullptr || raw.finish == nullptr) {
    return loaded->Broken("ingest start", "its ingest function table has a NULL entry");
  }
  return std::unique_ptr<IngestSession>(std::move(session));
}

}  // namespace lancet::media
