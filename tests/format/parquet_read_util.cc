#include "format/parquet_read_util.h"

#include <algorithm>
#include <cstring>

namespace lancet::format::parquet::testing {

void CompactWriter::Varint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void CompactWriter::Header(int16_t id, uint8_t type) {
  int16_t delta = id - last_.back();
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | type));
  } else {
    out_.push_back(static_cast<char>(type));
    Varint(static_cast<uint64_t>((id << 1) ^ (id >> 15)) & 0xffff);
  }
  last_.back() = id;
}

void CompactWriter::I32(int16_t id, int32_t v) {
  Header(id, 5);
  Varint(static_cast<uint32_t>((v << 1) ^ (v >> 31)));
}
void CompactWriter::I64(int16_t id, int64_t v) {
  Header(id, 6);
  Varint(static_cast<uint64_t>((v << 1) ^ (v >> 63)));
}
void CompactWriter::Byte(int16_t id, int8_t v) {
  Header(id, 3);
  out_.push_back(static_cast<char>(v));
}
void CompactWriter::Bool(int16_t id, bool v) { Header(id, v ? 1 : 2); }
void CompactWriter::Binary(int16_t id, const std::string& v) {
  Header(id, 8);
  Varint(v.size());
  out_ += v;
}
void CompactWriter::BeginStruct(int16_t id) {
  Header(id, 12);
  last_.push_back(0);
}
void CompactWriter::EndStruct() {
  out_.push_back(0);
  last_.pop_back();
}
void CompactWriter::BeginList(int16_t id, uint8_t elem, uint32_t n) {
  Header(id, 9);
  if (n < 15) {
    out_.push_back(static_cast<char>((n << 4) | elem));
  } else {
    out_.push_back(static_cast<char>(0xf0 | elem));
    Varint(n);
  }
}
void CompactWriter::ListI32(int32_t v) { Varint(static_cast<uint32_t>((v << 1) ^ (v >> 31))); }
void CompactWriter::ListBinary(const std::string& v) {
  Varint(v.size());
  out_ += v;
}
void CompactWriter::BeginListStruct() { last_.push_back(0); }
std::string CompactWriter::Finish() {
  out_.push_back(0);
  return std::move(out_);
}

std::string DataPageV1Header(size_t body_size, int32_t num_values, Encoding encoding) {
  CompactWriter w;
  w.I32(1, 0);
  w.I32(2, static_cast<int32_t>(body_size));
  w.I32(3, static_cast<int32_t>(body_size));
  w.BeginStruct(5);
  w.I32(1, num_values);
  w.I32(2, static_cast<int32_t>(encoding));
  w.I32(3, 3);
  w.I32(4, 3);
  w.EndStruct();
  return w.Finish();
}

std::string DictionaryPageHeader(size_t body_size, int32_t num_values) {
  CompactWriter w;
  w.I32(1, 2);
  w.I32(2, static_cast<int32_t>(body_size));
  w.I32(3, static_cast<int32_t>(body_size));
  w.BeginStruct(7);
  w.I32(1, num_values);
  w.I32(2, 0);
  w.EndStruct();
  return w.Finish();
}

std::string DataPageV2Header(size_t body_size, int32_t num_values, int32_t num_nulls, int32_t num_rows,
                             Encoding encoding, int32_t def_len, int32_t rep_len) {
  CompactWriter w;
  w.I32(1, 3);
  w.I32(2, static_cast<int32_t>(body_size));
  w.I32(3, static_cast<int32_t>(body_size));
  w.BeginStruct(8);
  w.I32(1, num_values);
  w.I32(2, num_nulls);
  w.I32(3, num_rows);
  w.I32(4, static_cast<int32_t>(encoding));
  w.I32(5, def_len);
  w.I32(6, rep_len);
  w.Bool(7, false);
  w.EndStruct();
  return w.Finish();
}

std::string BuildFile(const std::vector<Element>& schema, const std::vector<Group>& groups,
                      const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string file = "PAR1";
  struct Placed {
    int64_t offset, size;
  };
  std::vector<std::vector<Placed>> placed;
  for (const Group& g : groups) {
    placed.emplace_back();
    for (const Chunk& c : g.chunks) {
      placed.back().push_back({static_cast<int64_t>(file.size()), static_cast<int64_t>(c.pages.size())});
      file += c.pages;
    }
  }
  CompactWriter w;
  w.I32(1, 2);
  w.BeginList(2, 12, static_cast<uint32_t>(schema.size()));
  for (const Element& e : schema) {
    w.BeginListStruct();
    if (e.type >= 0) w.I32(1, e.type);
    if (e.type_length >= 0) w.I32(2, e.type_length);
    if (e.repetition >= 0) w.I32(3, e.repetition);
    w.Binary(4, e.name);
    if (e.num_children >= 0) w.I32(5, e.num_children);
    if (e.converted >= 0) w.I32(6, e.converted);
    if (e.scale >= 0) w.I32(7, e.scale);
    if (e.precision >= 0) w.I32(8, e.precision);
    if (e.field_id >= 0) w.I32(9, e.field_id);
    if (e.logical) {
      w.BeginStruct(10);
      w.BeginStruct(static_cast<int16_t>(e.logical));
      if (e.logical == 10) {
        w.Byte(1, static_cast<int8_t>(e.logical_a));
        w.Bool(2, e.logical_b != 0);
      } else if (e.logical == 5) {
        w.I32(1, e.logical_a);
        w.I32(2, e.logical_b);
      } else if (e.logical == 7 || e.logical == 8) {
        w.Bool(1, e.logical_a != 0);
        w.BeginStruct(2);
        w.BeginStruct(static_cast<int16_t>(e.logical_b));
        w.EndStruct();
        w.EndStruct();
      }
      w.EndStruct();
      w.EndStruct();
    }
    w.EndStruct();
  }
  int64_t rows = 0;
  for (const Group& g : groups) rows += g.num_rows;
  w.I64(3, rows);
  w.BeginList(4, 12, static_cast<uint32_t>(groups.size()));
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    w.BeginListStruct();
    w.BeginList(1, 12, static_cast<uint32_t>(g.chunks.size()));
    for (size_t ci = 0; ci < g.chunks.size(); ++ci) {
      const Chunk& c = g.chunks[ci];
      w.BeginListStruct();
      w.I64(2, placed[gi][ci].offset);
      w.BeginStruct(3);
      w.I32(1, static_cast<int32_t>(c.type));
      w.BeginList(2, 5, 1);
      w.ListI32(0);
      w.BeginList(3, 8, static_cast<uint32_t>(c.path.size()));
      for (const auto& p : c.path) w.ListBinary(p);
      w.I32(4, 0);
      w.I64(5, c.num_values);
      w.I64(6, placed[gi][ci].size);
      w.I64(7, placed[gi][ci].size);
      w.I64(9, placed[gi][ci].offset);
      w.EndStruct();
      w.EndStruct();
    }
    w.I64(2, 0);
    w.I64(3, g.num_rows);
    w.EndStruct();
  }
  if (!kv.empty()) {
    w.BeginList(5, 12, static_cast<uint32_t>(kv.size()));
    for (const auto& [k, v] : kv) {
      w.BeginListStruct();
      w.Binary(1, k);
      w.Binary(2, v);
      w.EndStruct();
    }
  }
  std::string footer = w.Finish();
  file += footer;
  uint32_t len = static_cast<uint32_t>(footer.size());
  file.append(reinterpret_cast<const char*>(&len), 4);
  file += "PAR1";
  return file;
}

std::string RleLevels(const std::vector<int>& levels, int bit_width, bool length_prefix) {
  CompactWriter w;
  std::string runs;
  for (size_t i = 0; i < levels.size();) {
    size_t j = i;
    while (j < levels.size() && levels[j] == levels[i]) ++j;
    uint64_t header = (j - i) << 1;
    while (header >= 0x80) {
      runs.push_back(static_cast<char>((header & 0x7f) | 0x80));
      header >>= 7;
    }
    runs.push_back(static_cast<char>(header));
    for (int b = 0; b < (bit_width + 7) / 8; ++b) runs.push_back(static_cast<char>((levels[i] >> (8 * b)) & 0xff));
    i = j;
  }
  if (!length_prefix) return runs;
  uint32_t len = static_cast<uint32_t>(runs.size());
  return std::string(reinterpret_cast<const char*>(&len), 4) + runs;
}

std::string PlainInt32(const std::vector<int32_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}
std::string PlainInt64(const std::vector<int64_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 8);
}
std::string PlainStrings(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) {
    uint32_t len = static_cast<uint32_t>(s.size());
    out.append(reinterpret_cast<const char*>(&len), 4);
    out += s;
  }
  return out;
}

}  // namespace lancet::format::parquet::testing

namespace lancet::format::parquet::testing {

std::string DeltaBinaryPacked(const std::vector<int64_t>& values) {
  constexpr int kBlock = 128, kMinis = 4, kPerMini = kBlock / kMinis;
  CompactWriter w;
  w.Varint(kBlock);
  w.Varint(kMinis);
  w.Varint(values.size());
  const int64_t first = values.empty() ? 0 : values[0];
  w.Varint(static_cast<uint64_t>((first << 1) ^ (first >> 63)));
  for (size_t start = 1; start < values.size(); start += kBlock) {
    const size_t end = std::min(values.size(), start + kBlock);
    std::vector<int64_t> deltas;
    for (size_t i = start; i < end; ++i) deltas.push_back(values[i] - values[i - 1]);
    const int64_t min_delta = *std::min_element(deltas.begin(), deltas.end());
    w.Varint(static_cast<uint64_t>((min_delta << 1) ^ (min_delta >> 63)));
    std::string widths, minis;
    for (int m = 0; m < kMinis; ++m) {
      const size_t b = static_cast<size_t>(m) * kPerMini;
      if (b >= deltas.size()) {
        widths.push_back(0);
        continue;
      }
      uint64_t max = 0;
      for (size_t i = b; i < std::min(deltas.size(), b + kPerMini); ++i) {
        max = std::max(max, static_cast<uint64_t>(deltas[i] - min_delta));
      }
      int width = 0;
      while (width < 64 && (max >> width) != 0) ++width;
      widths.push_back(static_cast<char>(width));
      std::vector<uint8_t> packed(kPerMini * width / 8, 0);
      for (size_t i = 0; i < kPerMini && b + i < deltas.size(); ++i) {
        const uint64_t v = static_cast<uint64_t>(deltas[b + i] - min_delta);
        for (int bit = 0; bit < width; ++bit) {
          if ((v >> bit) & 1) packed[(i * width + bit) / 8] |= static_cast<uint8_t>(1u << ((i * width + bit) % 8));
        }
      }
      minis.append(packed.begin(), packed.end());
    }
    w.Raw(widths + minis);
  }
  std::string out = w.Finish();
  out.pop_back();  // the struct stop byte Finish adds
  return out;
}

std::string Base64(const std::string& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

}  // namespace lancet::format::parquet::testing
