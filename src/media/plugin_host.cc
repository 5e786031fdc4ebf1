#include "lancet/media/plugin_host.h"

#include <limits>

#include "media/ingest_session.h"
#include "media/loaded_plugin.h"

namespace lancet::media {
namespace {

std::string RangeText(uint64_t offset, uint64_t length) {
  return "[" + std::to_string(offset) + ", " + std::to_string(offset) + "+" + std::to_string(length) + ")";
}

}  // namespace

MediaPlugin::MediaPlugin(std::shared_ptr<const LoadedPlugin> loaded, const HostLimits& limits)
    : loaded_(std::move(loaded)),
      limits_(limits),
      library_(loaded_->library),
      name_(loaded_->name),
      blob_type_(loaded_->plugin.blob_type) {}

Result<std::shared_ptr<MediaPlugin>> MediaPlugin::Load(const PluginSpec& spec, const HostLimits& limits) {
  ASSIGN_OR_RETURN(auto loaded, LoadedPlugin::Open(spec));
  return std::shared_ptr<MediaPlugin>(new MediaPlugin(std::move(loaded), limits));
}

Result<std::unique_ptr<IngestSession>> MediaPlugin::StartIngest() const { return StartPluginIngest(loaded_, limits_); }

Result<std::vector<io::ByteRange>> MediaPlugin::Plan(std::span<const uint8_t> stream_info,
                                                     std::span<const uint8_t> entries, std::span<const uint8_t> request,
                                                     uint64_t blob_size) const {
  const LancetMediaPlugin& p = loaded_->plugin;
  LancetMediaRanges raw{};
  LancetMediaError error{};
  int code = p.plan(&p, stream_info.data(), stream_info.size(), entries.data(), entries.size(), request.data(),
                    request.size(), blob_size, &raw, &error);
  PluginRanges owned(raw);
  if (code != LANCET_MEDIA_OK) return loaded_->Failure("plan", code, error);
  if (raw.count > limits_.max_ranges) {
    return loaded_->Broken("plan", "returned " + std::to_string(raw.count) + " ranges, the limit is " +
                                       std::to_string(limits_.max_ranges));
  }
  if (raw.count > 0 && (raw.ranges == nullptr || raw.release == nullptr)) {
    return loaded_->Broken("plan", "returned " + std::to_string(raw.count) + " ranges without a pointer and release");
  }
  std::vector<io::ByteRange> ranges;
  ranges.reserve(raw.count);
  uint64_t total = 0;
  for (uint64_t i = 0; i < raw.count; ++i) {
    LancetMediaRange r = raw.ranges[i];
    if (r.length > std::numeric_limits<uint64_t>::max() - r.offset || r.offset + r.length > blob_size) {
      return loaded_->Broken("plan", "range " + std::to_string(i) + " " + RangeText(r.offset, r.length) +
                                         " is not inside the " + std::to_string(blob_size) + "-byte blob");
    }
    // Both terms are at most blob_size, so the sum cannot wrap.
    total += r.length;
    if (total > blob_size) {
      return loaded_->Broken("plan", "its ranges add up to more than the " + std::to_string(blob_size) + "-byte blob");
    }
    ranges.push_back({r.offset, r.length});
  }
  return ranges;
}

Result<DecodedOutput> MediaPlugin::Decode(std::span<const uint8_t> request, std::span<const uint8_t> stream_info,
                                          std::span<const uint8_t> entries, std::span<const io::ByteRange> ranges,
                                          std::span<const BufferPtr> bytes) const {
  if (ranges.size() != bytes.size()) {
    return Status::InvalidArgument(loaded_->Where("decode") + ": " + std::to_string(ranges.size()) + " ranges but " +
                                   std::to_string(bytes.size()) + " byte buffers");
  }
  if (ranges.size() > limits_.max_ranges) {
    return Status::InvalidArgument(loaded_->Where("decode") + ": " + std::to_string(ranges.size()) +
                                   " ranges, the limit is " + std::to_string(limits_.max_ranges));
  }
  std::vector<LancetMediaRange> raw_ranges(ranges.size());
  std::vector<const uint8_t*> data(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const io::ByteRange& r = ranges[i];
    if (r.length > std::numeric_limits<uint64_t>::max() - r.offset) {
      return Status::InvalidArgument(loaded_->Where("decode") + ": range " + std::to_string(i) + " " +
                                     RangeText(r.offset, r.length) + " overflows");
    }
    if (bytes[i] == nullptr || bytes[i]->size() != r.length) {
      return Status::InvalidArgument(loaded_->Where("decode") + ": range " + std::to_string(i) + " " +
                                     RangeText(r.offset, r.length) + " comes with " +
                                     (bytes[i] ? std::to_string(bytes[i]->size()) : std::string("no")) + " bytes");
    }
    raw_ranges[i] = {r.offset, r.length};
    data[i] = bytes[i]->data();
  }
  const LancetMediaPlugin& p = loaded_->plugin;
  LancetMediaDecoded raw{};
  LancetMediaError error{};
  int code = p.decode(&p, request.data(), request.size(), stream_info.data(), stream_info.size(), entries.data(),
                      entries.size(), raw_ranges.data(), data.data(), raw_ranges.size(), &raw, &error);
  // Owned before anything is checked, so every exit releases both.
  auto out_data = std::make_shared<PluginBuffer>(loaded_, &raw.data);
  auto out_meta = std::make_shared<PluginBuffer>(loaded_, &raw.metadata);
  if (code != LANCET_MEDIA_OK) return loaded_->Failure("decode", code, error);
  DecodedOutput output;
  ASSIGN_OR_RETURN(output.data, PluginBuffer::Share(std::move(out_data), limits_.max_output_bytes, "decode", "output"));
  ASSIGN_OR_RETURN(BufferPtr meta,
                   PluginBuffer::Share(std::move(out_meta), limits_.max_metadata_bytes, "decode", "metadata"));
  output.metadata.assign(meta->view());
  return output;
}

}  // namespace lancet::media
