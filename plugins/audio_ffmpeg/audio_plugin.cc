// The ABI table: init, config, plan and decode entry points, and the buffers handed out.
// Every entry point is noexcept and funnels failures through Guard.
#include <cstdio>
#include <cstring>
#include <memory>

extern "C" {
#include <libavutil/log.h>
}

#include "audio_internal.h"

namespace lancet_audio {

int Report(LancetMediaError* error, const Error& e) noexcept {
  if (error != nullptr) std::snprintf(error->message, sizeof error->message, "%s", e.message.c_str());
  return e.code;
}

namespace {

void ReleaseVector(LancetMediaBuffer* self) {
  delete static_cast<std::vector<uint8_t>*>(self->private_data);
  self->private_data = nullptr;
  self->release = nullptr;
}

void ReleaseRanges(LancetMediaRanges* self) {
  delete static_cast<std::vector<LancetMediaRange>*>(self->private_data);
  self->private_data = nullptr;
  self->release = nullptr;
}

std::string Trim(std::string s) {
  const char* space = " \t\r\n";
  s.erase(0, s.find_first_not_of(space));
  s.erase(s.find_last_not_of(space) + 1);
  return s;
}

const Config& ConfigOf(const LancetMediaPlugin* self) { return *static_cast<const Config*>(self->private_data); }

struct Parsed {
  StreamInfo si;
  Index index;
  Request request;
  Selection selection;
};

Parsed Parse(const uint8_t* stream_info, uint64_t stream_info_size, const uint8_t* entries, uint64_t entries_size,
             const uint8_t* request, uint64_t request_size) {
  Parsed p;
  p.si = ReadStreamInfo(stream_info, stream_info_size);
  p.index = ReadEntries(entries, entries_size, p.si);
  p.request = ReadRequest(request, request_size);
  p.selection = Select(p.si, p.index, p.request);
  return p;
}

int PlanAbi(const LancetMediaPlugin*, const uint8_t* stream_info, uint64_t stream_info_size, const uint8_t* entries,
            uint64_t entries_size, const uint8_t* request, uint64_t request_size, uint64_t blob_size,
            LancetMediaRanges* out, LancetMediaError* error) noexcept {
  return Guard(error, [&] {
    Parsed p = Parse(stream_info, stream_info_size, entries, entries_size, request, request_size);
    const GroupRecord& last = p.index.groups.back();
    if (last.offset + last.size > blob_size) {
      Fail(LANCET_MEDIA_ECORRUPT, "entries describe " + std::to_string(last.offset + last.size) +
                                      " stored bytes but the blob has " + std::to_string(blob_size));
    }
    auto ranges = std::make_unique<std::vector<LancetMediaRange>>();
    // Groups are stored back to back in decode order: the pre-roll's and the window's
    // groups are one contiguous range.
    if (!p.selection.empty) {
      const GroupRecord& a = p.index.groups[p.selection.start];
      const GroupRecord& b = p.index.groups[p.selection.last];
      ranges->push_back({a.offset, b.offset + b.size - a.offset});
    }
    out->ranges = ranges->data();
    out->count = ranges->size();
    out->private_data = ranges.release();
    out->release = ReleaseRanges;
  });
}

int DecodeAbi(const LancetMediaPlugin*, const uint8_t* request, uint64_t request_size, const uint8_t* stream_info,
              uint64_t stream_info_size, const uint8_t* entries, uint64_t entries_size, const LancetMediaRange* ranges,
              const uint8_t* const* range_data, uint64_t range_count, LancetMediaDecoded* out,
              LancetMediaError* error) noexcept {
  return Guard(error, [&] {
    if (range_count > 0 && (ranges == nullptr || range_data == nullptr)) {
      Fail(LANCET_MEDIA_EINVAL, "decode got ranges without pointers");
    }
    Parsed p = Parse(stream_info, stream_info_size, entries, entries_size, request, request_size);
    Decoded d = DecodeWindow(p.si, p.index, p.request, p.selection, ranges, range_data, range_count);
    LancetMediaDecoded result{};
    GiveBuffer(&result.metadata, std::move(d.metadata));
    try {
      GiveBuffer(&result.data, std::move(d.data));
    } catch (...) {
      result.metadata.release(&result.metadata);
      throw;
    }
    *out = result;
  });
}

int IngestStartAbi(const LancetMediaPlugin* self, LancetMediaIngest* out, LancetMediaError* error) noexcept {
  return StartIngest(ConfigOf(self), out, error);
}

void ReleasePlugin(LancetMediaPlugin* self) {
  delete static_cast<Config*>(self->private_data);
  self->private_data = nullptr;
  self->release = nullptr;
}

}  // namespace

void GiveBuffer(LancetMediaBuffer* out, std::vector<uint8_t>&& bytes) {
  auto owned = std::make_unique<std::vector<uint8_t>>(std::move(bytes));
  out->data = owned->data();
  out->size = owned->size();
  out->release = ReleaseVector;
  out->private_data = owned.release();
}

Config ParseConfig(const uint8_t* data, uint64_t size) {
  if (size > 4096) Fail(LANCET_MEDIA_EINVAL, "config has " + std::to_string(size) + " bytes, at most 4096");
  Config config;
  std::string text(reinterpret_cast<const char*>(data), data == nullptr ? 0 : size);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(",;", start);
    if (end == std::string::npos) end = text.size();
    std::string item = Trim(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) Fail(LANCET_MEDIA_EINVAL, "config item '" + item + "' is not key=value");
    std::string key = Trim(item.substr(0, eq)), value = Trim(item.substr(eq + 1));
    if (key != "stream") Fail(LANCET_MEDIA_EINVAL, "unknown config key '" + key + "' (known: stream)");
    uint64_t v = 0;
    bool ok = !value.empty() && value.size() <= 5;
    for (char c : value) {
      if (c < '0' || c > '9') ok = false;
      if (ok) v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!ok || v > 65535)
      Fail(LANCET_MEDIA_EINVAL, "config stream must be a number from 0 to 65535, got '" + value + "'");
    config.stream = static_cast<int>(v);
  }
  return config;
}

}  // namespace lancet_audio

extern "C" LANCET_MEDIA_EXPORT int lancet_media_plugin_init(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                            const uint8_t* config, uint64_t config_size,
                                                            LancetMediaPlugin* out, LancetMediaError* error) noexcept {
  using namespace lancet_audio;
  (void)host_abi_minor;
  return Guard(error, [&] {
    if (host_abi_major != LANCET_MEDIA_ABI_MAJOR) {
      Fail(LANCET_MEDIA_ENOTSUP, "built for media plugin ABI " + std::to_string(LANCET_MEDIA_ABI_MAJOR) +
                                     ", the host speaks " + std::to_string(host_abi_major));
    }
    auto parsed = std::make_unique<Config>(ParseConfig(config, config_size));
    // FFmpeg logs every damaged packet to stderr; a library embedded in a host should not,
    // unless the host chose a log level itself.
    if (av_log_get_level() == AV_LOG_INFO) av_log_set_level(AV_LOG_QUIET);
    LancetMediaPlugin plugin{};
    plugin.abi_major = LANCET_MEDIA_ABI_MAJOR;
    plugin.abi_minor = LANCET_MEDIA_ABI_MINOR;
    plugin.release = ReleasePlugin;
    plugin.private_data = parsed.release();
    plugin.name = "audio_ffmpeg";
    plugin.blob_type = LANCET_MEDIA_BLOB_AUDIO;
    plugin.ingest_start = IngestStartAbi;
    plugin.plan = PlanAbi;
    plugin.decode = DecodeAbi;
    *out = plugin;
  });
}
