#include "lancet/info_audio.h"

#include <cstdio>
#include <map>

#include "lancet/media/audio_stream_info.h"

namespace lancet::cli {
namespace {

struct AudioRow {
  uint64_t row_id = 0;
  media::AudioStreamInfo info;
};

// The rows of `rows` (one blob column's) that hold audio stream_info, parsed.
Result<std::vector<AudioRow>> AudioRows(const std::string& column, std::span<const StreamInfoRow> rows) {
  std::vector<AudioRow> out;
  for (const StreamInfoRow& r : rows) {
    std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(r.stream_info.data()), r.stream_info.size());
    if (!media::IsAudioStreamInfo(span)) continue;
    auto parsed = media::ParseAudioStreamInfo(span);
    if (!parsed.ok()) {
      return Status::Corruption("column '" + column + "' row id " + std::to_string(r.row_id) + ": " +
                                parsed.status().message());
    }
    out.push_back({r.row_id, std::move(*parsed)});
  }
  return out;
}

std::string AudioRowLine(const AudioRow& r) {
  const auto& a = r.info;
  char line[256];
  std::snprintf(line, sizeof(line), "    row %llu: %.3f s, %u Hz, %u ch, %s, %llu packets\n",
                static_cast<unsigned long long>(r.row_id), a.duration_s, a.sample_rate, a.channels,
                a.codec.empty() ? "?" : a.codec.c_str(), static_cast<unsigned long long>(a.packets));
  return line;
}

std::string AudioSummary(const std::vector<AudioRow>& rows) {
  double total = 0;
  std::map<std::string, uint64_t> codecs, rates;
  for (const AudioRow& r : rows) {
    total += r.info.duration_s;
    ++codecs[r.info.codec.empty() ? "?" : r.info.codec];
    ++rates[std::to_string(r.info.sample_rate) + " Hz " + std::to_string(r.info.channels) + " ch"];
  }
  auto list = [](const std::map<std::string, uint64_t>& m) {
    std::string s;
    for (const auto& [k, n] : m) s += (s.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    return s;
  };
  char line[128];
  std::snprintf(line, sizeof(line), "    %zu rows, %.3f s in total\n", rows.size(), total);
  return line + ("    formats: " + list(rates) + "\n    codecs: " + list(codecs) + "\n");
}

}  // namespace

Status AppendAudioRows(std::string& out, const std::string& column, std::span<const StreamInfoRow> rows,
                       uint64_t list_limit) {
  ASSIGN_OR_RETURN(std::vector<AudioRow> audio, AudioRows(column, rows));
  if (audio.empty()) return Status::OK();
  out += "\nAudio rows of '" + column + "' (" + std::to_string(audio.size()) + "):\n";
  if (audio.size() <= list_limit) {
    for (const AudioRow& r : audio) out += AudioRowLine(r);
  } else {
    out += AudioSummary(audio);
  }
  return Status::OK();
}

}  // namespace lancet::cli
