// The ABI table: init, plan and decode entry points, and the buffers handed out. Every
// entry point is noexcept and funnels failures through Guard.
#include <cstdio>
#include <memory>

#include "image_anim.h"
#include "image_pdf.h"

namespace lancet_image {

void Fail(int code, std::string message) { throw Error{code, std::move(message)}; }

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

// TIFF pages (index) or GIF/WebP frames (frames), by stream_info's format.
struct Parsed {
  StreamInfo si;
  Index index;
  FrameIndex frames;
  Request request;
};

Parsed Parse(const uint8_t* stream_info, uint64_t stream_info_size, const uint8_t* entries, uint64_t entries_size,
             const uint8_t* request, uint64_t request_size) {
  Parsed p;
  p.si = ReadStreamInfo(stream_info, stream_info_size);
  if (p.si.animated()) {
    p.frames = ReadFrames(entries, entries_size, p.si);
    p.request = ParseRequest(request, request_size);
    CheckRequest(p.request, p.frames.frames.size(), p.si.canvas_width, p.si.canvas_height);
  } else {
    p.index = ReadEntries(entries, entries_size, p.si);
    p.request = ReadRequest(request, request_size, p.index);
  }
  return p;
}

// The chunks the area intersects, in grid order; neighbours stored back to back merge.
std::vector<LancetMediaRange> PlanTiles(const Index& index, const Request& request, uint64_t blob_size) {
  const Page& page = index.pages[request.page];
  std::vector<LancetMediaRange> ranges;
  for (uint64_t c : ChunksFor(page, RequestArea(request, page))) {
    const Chunk& ch = index.chunks[c];
    if (ch.size == 0) continue;
    if (ch.offset > blob_size || ch.size > blob_size - ch.offset) {
      Fail(LANCET_MEDIA_ECORRUPT, "entries chunk " + std::to_string(c) + " [" + std::to_string(ch.offset) + ", +" +
                                      std::to_string(ch.size) + ") lies past the " + std::to_string(blob_size) +
                                      "-byte blob");
    }
    if (!ranges.empty() && ranges.back().offset + ranges.back().length == ch.offset) {
      ranges.back().length += ch.size;
    } else {
      ranges.push_back({ch.offset, ch.size});
    }
  }
  return ranges;
}

int PlanAbi(const LancetMediaPlugin*, const uint8_t* stream_info, uint64_t stream_info_size, const uint8_t* entries,
            uint64_t entries_size, const uint8_t* request, uint64_t request_size, uint64_t blob_size,
            LancetMediaRanges* out, LancetMediaError* error) noexcept {
  return Guard(error, [&] {
    Parsed p = Parse(stream_info, stream_info_size, entries, entries_size, request, request_size);
    auto ranges = std::make_unique<std::vector<LancetMediaRange>>();
    if (p.si.animated()) {
      *ranges = PlanFrames(p.frames, p.request, blob_size);
    } else {
      *ranges = PlanTiles(p.index, p.request, blob_size);
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
    Decoded d = p.si.animated() ? DecodeFrames(p.request, p.si, p.frames, ranges, range_data, range_count)
                                : DecodeRequest(p.request, p.index, ranges, range_data, range_count);
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
  return StartIngest(static_cast<const Config*>(self->private_data)->pdf_dpi, out, error);
}

void ReleasePlugin(LancetMediaPlugin* self) {
  delete static_cast<Config*>(self->private_data);
  self->private_data = nullptr;
  self->release = nullptr;
}

}  // namespace

// Lines of key=value; blank lines and lines starting with '#' are skipped. An unknown key
// or a bad value is refused rather than ignored.
Config ParseConfig(const uint8_t* data, uint64_t size) {
  Config c;
  if (size == 0) return c;
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t eq = line.find('=');
    const std::string key = line.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : line.substr(eq + 1);
    if (key != "pdf_dpi") {
      Fail(LANCET_MEDIA_EINVAL, "image plugin config: unknown setting '" + key + "' (known: pdf_dpi)");
    }
    uint32_t dpi = 0;
    bool digits = !value.empty() && value.size() <= 4;
    for (char ch : value) {
      digits = digits && ch >= '0' && ch <= '9';
      dpi = dpi * 10 + static_cast<uint32_t>(ch - '0');
    }
    if (!digits || dpi < 1 || dpi > 1200) {
      Fail(LANCET_MEDIA_EINVAL, "image plugin config: pdf_dpi '" + value + "' is not 1 to 1200");
    }
    c.pdf_dpi = dpi;
  }
  return c;
}

void GiveBuffer(LancetMediaBuffer* out, std::vector<uint8_t>&& bytes) {
  auto owned = std::make_unique<std::vector<uint8_t>>(std::move(bytes));
  out->data = owned->data();
  out->size = owned->size();
  out->release = ReleaseVector;
  out->private_data = owned.release();
}

}  // namespace lancet_image

extern "C" LANCET_MEDIA_EXPORT int lancet_media_plugin_init(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                            const uint8_t* config, uint64_t config_size,
                                                            LancetMediaPlugin* out, LancetMediaError* error) noexcept {
  using namespace lancet_image;
  (void)host_abi_minor;
  return Guard(error, [&] {
    if (host_abi_major != LANCET_MEDIA_ABI_MAJOR) {
      Fail(LANCET_MEDIA_ENOTSUP, "built for media plugin ABI " + std::to_string(LANCET_MEDIA_ABI_MAJOR) +
                                     ", the host speaks " + std::to_string(host_abi_major));
    }
    if (config_size > 0 && config == nullptr) Fail(LANCET_MEDIA_EINVAL, "config bytes without a pointer");
    auto parsed = std::make_unique<Config>(ParseConfig(config, config_size));
    LancetMediaPlugin plugin{};
    plugin.abi_major = LANCET_MEDIA_ABI_MAJOR;
    plugin.abi_minor = LANCET_MEDIA_ABI_MINOR;
    plugin.release = ReleasePlugin;
    plugin.name = "image";
    plugin.blob_type = LANCET_MEDIA_BLOB_IMAGE;
    plugin.ingest_start = IngestStartAbi;
    plugin.plan = PlanAbi;
    plugin.decode = DecodeAbi;
    plugin.private_data = parsed.release();
    *out = plugin;
  });
}
