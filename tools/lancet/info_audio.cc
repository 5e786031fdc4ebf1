#include "lancet/info_audio.h"

#include <cstdio>
#include <map>

#include "lancet/media/audio_stream_info.h"
#include "lancet/media/write_blob_info.h"

namespace lancet::cli {
namespace {

const Array* AudioChild(const Array& s, const std::string& name) {
  for (size_t i = 0; i < s.type.children.size() && i < s.children.size(); ++i) {
    if (s.type.children[i].name == name) return &s.children[i];
  }
  return nullptr;
}

struct AudioRow {
  uint64_t row_id = 0;
  media::AudioStreamInfo info;
};

// The audio rows of blob column `column`, in row order.
Result<std::vector<AudioRow>> AudioRows(const table::Dataset& ds, const std::string& column) {
  table::ScanOptions scan;
  scan.columns = {column};
  scan.with_row_id = true;
  ASSIGN_OR_RETURN(auto batches, ds.Scan(scan));
  std::vector<AudioRow> rows;
  for (const RecordBatch& b : batches) {
    if (b.columns.size() < 2) continue;
    const Array& desc = b.columns[0];
    const Array& ids = b.columns.back();
    const Array* info = AudioChild(desc, "blob_info");
    if (info == nullptr || ids.type.id != TypeId::kUInt64) continue;
    const Array* type = AudioChild(*info, "blob_type");
    const Array* stream = AudioChild(*info, "stream_info");
    if (type == nullptr || stream == nullptr || type->type.id != TypeId::kUInt8) continue;
    if (stream->type.id != TypeId::kBinary && stream->type.id != TypeId::kLargeBinary) continue;
    for (int64_t i = 0; i < b.num_rows; ++i) {
      // Struct children are indexed with the parents' offsets added (Arrow's rule).
      const int64_t d = desc.offset + i;
      if (!desc.IsValid(i) || !info->IsValid(d)) continue;
      const int64_t m = info->offset + d;
      if (!type->IsValid(m) || type->values<uint8_t>()[m] == 0 || !stream->IsValid(m)) continue;
      const std::string_view bytes = stream->GetView(m);
      std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      if (!media::IsAudioStreamInfo(span)) continue;
      const uint64_t id = ids.values<uint64_t>()[i];
      auto parsed = media::ParseAudioStreamInfo(span);
      if (!parsed.ok()) {
        return Status::Corruption("column '" + column + "' row id " + std::to_string(id) + ": " +
                                  parsed.status().message());
      }
      rows.push_back({id, std::move(*parsed)});
    }
  }
  return rows;
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

Status AppendAudioRows(std::string& out, const table::Dataset& ds, uint64_t list_limit) {
  for (const Field& f : ds.schema().fields) {
    if (!IsBlobV2Field(f) || f.metadata.count(media::kMediaPluginKey) == 0) continue;
    auto rows = AudioRows(ds, f.name);
    if (!rows.ok()) return rows.status().WithContext(ds.uri());
    if (rows->empty()) continue;
    out += "\nAudio rows of '" + f.name + "' (" + std::to_string(rows->size()) + "):\n";
    if (rows->size() <= list_limit) {
      for (const AudioRow& r : *rows) out += AudioRowLine(r);
    } else {
      out += AudioSummary(*rows);
    }
  }
  return Status::OK();
}

}  // namespace lancet::cli
