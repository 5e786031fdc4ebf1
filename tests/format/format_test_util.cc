#include "format_test_util.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>

#include "lance_proto/encodings_v2_0.pb.h"
#include "lance_proto/file.pb.h"
#include "lance_proto/file2.pb.h"

namespace lancet::format::testing {

namespace fs = std::filesystem;
namespace pb = ::lance::encodings21;
using nlohmann::json;

std::string CorpusDir() {
  const char* env = std::getenv("LANCET_CORPUS_DIR");
  std::string dir = env ? env : "/tmp/corpus";
  std::error_code ec;
  if (fs::exists(fs::path(dir) / "data", ec) && fs::exists(fs::path(dir) / "expected", ec)) return dir;
  return "";
}

std::vector<std::string> CorpusDataFiles(const std::string& dataset) {
  std::vector<std::string> out;
  std::string dir = CorpusDir();
  if (dir.empty()) return out;
  std::error_code ec;
  for (const auto& ds : fs::directory_iterator(fs::path(dir) / "data", ec)) {
    if (!dataset.empty() && ds.path().filename() != dataset + ".lance") continue;
    fs::path data = ds.path() / "data";
    if (!fs::exists(data, ec)) continue;
    for (const auto& f : fs::directory_iterator(data, ec)) {
      if (f.is_regular_file() && f.path().extension() == ".lance") out.push_back(f.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

template <typename T>
T ValueAt(const Array& a, int64_t i) {
  T v;
  std::memcpy(&v, a.buffers[1]->data() + (a.offset + i) * sizeof(T), sizeof(T));
  return v;
}

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (unsigned char c : bytes) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
  }
  return s;
}

json FloatJson(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0 && std::signbit(v)) return "-0";
  return v;
}

double HalfToDouble(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(mant, -24);
  } else if (exp == 31) {
    v = mant ? NAN : INFINITY;
  } else {
    v = std::ldexp(mant + 1024, exp - 25);
  }
  return sign ? -v : v;
}

// Two's-complement little-endian integer of `words` 64-bit limbs, as decimal.
std::string BigIntString(std::vector<uint64_t> limbs) {
  bool negative = (limbs.back() >> 63) != 0;
  if (negative) {
    uint64_t carry = 1;
    for (auto& l : limbs) {
      l = ~l;
      unsigned __int128 s = static_cast<unsigned __int128>(l) + carry;
      l = static_cast<uint64_t>(s);
      carry = static_cast<uint64_t>(s >> 64);
    }
  }
  std::string digits;
  auto is_zero = [&] { return std::all_of(limbs.begin(), limbs.end(), [](uint64_t l) { return l == 0; }); };
  while (!is_zero()) {
    unsigned __int128 rem = 0;
    for (size_t k = limbs.size(); k-- > 0;) {
      unsigned __int128 cur = (rem << 64) | limbs[k];
      limbs[k] = static_cast<uint64_t>(cur / 10);
      rem = cur % 10;
    }
    digits += static_cast<char>('0' + static_cast<int>(rem));
  }
  if (digits.empty()) digits = "0";
  if (negative) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::pair<int64_t, int64_t> Range(const Array& a, int64_t i) {
  const int64_t j = a.offset + i;
  if (a.type.id == TypeId::kLargeList) {
    const auto* o = a.buffers[1]->data_as<int64_t>();
    return {o[j], o[j + 1]};
  }
  const auto* o = a.buffers[1]->data_as<int32_t>();
  return {o[j], o[j + 1]};
}

std::string_view View(const Array& a, int64_t i) {
  const int64_t j = a.offset + i;
  int64_t b, e;
  if (a.type.IsLargeBinaryLike()) {
    b = a.buffers[1]->data_as<int64_t>()[j];
    e = a.buffers[1]->data_as<int64_t>()[j + 1];
  } else {
    b = a.buffers[1]->data_as<int32_t>()[j];
    e = a.buffers[1]->data_as<int32_t>()[j + 1];
  }
  return {reinterpret_cast<const char*>(a.buffers[2]->data()) + b, static_cast<size_t>(e - b)};
}

}  // namespace

json ValueToJson(const Array& a, int64_t i) {
  if (a.IsNull(i)) return nullptr;
  switch (a.type.id) {
    case TypeId::kNull: return nullptr;
    case TypeId::kBool: return a.GetBool(i);
    case TypeId::kInt8: return ValueAt<int8_t>(a, i);
    case TypeId::kInt16: return ValueAt<int16_t>(a, i);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return ValueAt<int32_t>(a, i);
    case TypeId::kUInt8: return ValueAt<uint8_t>(a, i);
    case TypeId::kUInt16: return ValueAt<uint16_t>(a, i);
    case TypeId::kUInt32: return ValueAt<uint32_t>(a, i);
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: return std::to_string(ValueAt<int64_t>(a, i));
    case TypeId::kUInt64: return std::to_string(ValueAt<uint64_t>(a, i));
    case TypeId::kFloat16: return FloatJson(HalfToDouble(ValueAt<uint16_t>(a, i)));
    case TypeId::kFloat32: return FloatJson(ValueAt<float>(a, i));
    case TypeId::kFloat64: return FloatJson(ValueAt<double>(a, i));
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      const size_t n = a.type.id == TypeId::kDecimal128 ? 2 : 4;
      std::vector<uint64_t> limbs(n);
      std::memcpy(limbs.data(), a.buffers[1]->data() + (a.offset + i) * n * 8, n * 8);
      return BigIntString(limbs);
    }
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8: {
      auto v = View(a, i);
      if (v.size() > 256) return json{{"len", v.size()}};
      return std::string(v);
    }
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      auto v = View(a, i);
      if (v.size() > 256) return json{{"len", v.size()}};
      return Hex(v);
    }
    case TypeId::kFixedSizeBinary: {
      const int64_t w = a.type.byte_width;
      std::string_view v(reinterpret_cast<const char*>(a.buffers[1]->data()) + (a.offset + i) * w, w);
      if (v.size() > 256) return json{{"len", v.size()}};
      return Hex(v);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      auto [b, e] = Range(a, i);
      json arr = json::array();
      for (int64_t k = b; k < e; ++k) arr.push_back(ValueToJson(a.children[0], k));
      return arr;
    }
    case TypeId::kFixedSizeList: {
      json arr = json::array();
      const int64_t n = a.type.list_size;
      for (int64_t k = 0; k < n; ++k) arr.push_back(ValueToJson(a.children[0], (a.offset + i) * n + k));
      return arr;
    }
    case TypeId::kStruct: {
      json obj = json::object();
      for (size_t c = 0; c < a.type.children.size(); ++c) {
        obj[a.type.children[c].name] = ValueToJson(a.children[c], a.offset + i);
      }
      return obj;
    }
    case TypeId::kDictionary: return "<dictionary>";
  }
  return "<?>";
}

namespace {

bool IsFloat(const DataType& t) {
  return t.id == TypeId::kFloat16 || t.id == TypeId::kFloat32 || t.id == TypeId::kFloat64;
}

double NumberOf(const json& j) {
  if (j.is_number()) return j.get<double>();
  std::string s = j.get<std::string>();
  if (s == "NaN") return NAN;
  if (s == "Infinity") return INFINITY;
  if (s == "-Infinity") return -INFINITY;
  return std::stod(s);
}

}  // namespace

bool JsonMatches(const json& expected, const json& actual, const DataType& type, std::string* why) {
  auto fail = [&](const std::string& what) {
    *why = what + ": expected " + expected.dump().substr(0, 200) + " got " + actual.dump().substr(0, 200);
    return false;
  };
  if (expected.is_null() || actual.is_null()) return expected.is_null() == actual.is_null() ? true : fail("null");
  if (expected.is_object() && expected.contains("descriptor")) {
    return JsonMatches(expected["descriptor"], actual, type, why);
  }
  if (expected.is_object() && expected.contains("len") && expected.contains("sha256")) {
    uint64_t len = expected["len"].get<uint64_t>();
    if (actual.is_object()) return actual["len"].get<uint64_t>() == len ? true : fail("length");
    if (actual.is_string()) {
      uint64_t have = actual.get<std::string>().size();
      if (type.id == TypeId::kBinary || type.id == TypeId::kLargeBinary || type.id == TypeId::kFixedSizeBinary) {
        have /= 2;
      }
      return have == len ? true : fail("length");
    }
    return fail("digest vs non-string");
  }
  if (IsFloat(type)) {
    if (expected.is_string() && actual.is_string() && expected == actual) return true;
    if (expected.is_string() && expected.get<std::string>() == "-0") {
      return actual.is_string() && actual.get<std::string>() == "-0" ? true : fail("-0");
    }
    double e = NumberOf(expected), a = NumberOf(actual);
    if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a) ? true : fail("NaN");
    if (type.id == TypeId::kFloat32) return static_cast<float>(e) == static_cast<float>(a) ? true : fail("float32");
    if (type.id == TypeId::kFloat16) return std::fabs(e - a) <= std::fabs(e) * 1e-3 ? true : fail("float16");
    return e == a ? true : fail("float64");
  }
  switch (type.id) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
    case TypeId::kFixedSizeList: {
      if (!expected.is_array() || !actual.is_array() || expected.size() != actual.size()) return fail("list length");
      for (size_t k = 0; k < expected.size(); ++k) {
        if (!JsonMatches(expected[k], actual[k], type.children[0].type, why)) return false;
      }
      return true;
    }
    case TypeId::kStruct: {
      if (!expected.is_object() || !actual.is_object()) return fail("struct");
      for (const auto& c : type.children) {
        if (!expected.contains(c.name)) continue;
        if (!actual.contains(c.name)) return fail("missing child " + c.name);
        if (!JsonMatches(expected[c.name], actual[c.name], c.type, why)) {
          *why = c.name + "." + *why;
          return false;
        }
      }
      return true;
    }
    default:
      break;
  }
  if (expected.is_string() && actual.is_string()) return expected == actual ? true : fail("value");
  if (expected.is_number() && actual.is_number()) {
    return expected.get<double>() == actual.get<double>() ? true : fail("number");
  }
  if (expected.is_boolean() && actual.is_boolean()) return expected == actual ? true : fail("bool");
  // "5" vs 5 are the same value in the contract.
  std::string e = expected.is_string() ? expected.get<std::string>() : expected.dump();
  std::string a = actual.is_string() ? actual.get<std::string>() : actual.dump();
  return e == a ? true : fail("value");
}

std::vector<std::vector<int>> LeafColumnsByField(const Schema& schema) {
  std::vector<std::vector<int>> out;
  int next = 0;
  std::function<void(const Field&, std::vector<int>*)> walk = [&](const Field& f, std::vector<int>* cols) {
    if (IsLeafField(f)) {
      cols->push_back(next++);
      return;
    }
    for (const auto& c : f.type.children) walk(c, cols);
  };
  for (const auto& f : schema.fields) {
    out.emplace_back();
    walk(f, &out.back());
  }
  return out;
}

void FileBuilder::AddField(const std::string& name, int id, int parent, const std::string& logical_type,
                           bool nullable) {
  ::lance::file::Field f;
  f.set_name(name);
  f.set_id(id);
  f.set_parent_id(parent);
  f.set_logical_type(logical_type);
  f.set_nullable(nullable);
  fields_.push_back(f.SerializeAsString());
}

namespace {

std::string AnyOf(const std::string& url, const std::string& value) {
  google::protobuf::Any any;
  any.set_type_url(url);
  any.set_value(value);
  return any.SerializeAsString();
}

void Pad64(std::string* out) {
  while (out->size() % 64 != 0) out->push_back('H');
}

void PutU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

}  // namespace

std::string FileBuilder::Finish(uint16_t major, uint16_t minor) const {
  std::string out;
  std::vector<std::string> column_meta;
  for (const auto& pages : columns_) {
    ::lance::file::v2::ColumnMetadata cm;
    ::lance::encodings::ColumnEncoding ce;
    ce.mutable_values();
    cm.mutable_encoding()->mutable_direct()->set_encoding(AnyOf("/lance.encodings.ColumnEncoding", ce.SerializeAsString()));
    uint64_t row = 0;
    for (const auto& page : pages) {
      auto* p = cm.add_pages();
      for (const auto& b : page.buffers) {
        Pad64(&out);
        p->add_buffer_offsets(out.size());
        p->add_buffer_sizes(b.size());
        out += b;
      }
      p->set_length(page.rows);
      p->set_priority(row);
      row += page.rows;
      p->mutable_encoding()->mutable_direct()->set_encoding(
          AnyOf("/lance.encodings21.PageLayout", page.layout.SerializeAsString()));
    }
    column_meta.push_back(cm.SerializeAsString());
  }
  Pad64(&out);
  ::lance::file::FileDescriptor fd;
  auto* schema = fd.mutable_schema();
  for (const auto& f : fields_) schema->add_fields()->ParseFromString(f);
  fd.set_length(num_rows_);
  const uint64_t gb0_pos = out.size();
  const std::string gb0 = fd.SerializeAsString();
  out += gb0;
  const uint64_t column_meta_start = out.size();
  std::vector<std::pair<uint64_t, uint64_t>> cmo;
  for (const auto& m : column_meta) {
    cmo.emplace_back(out.size(), m.size());
    out += m;
  }
  const uint64_t cmo_pos = out.size();
  for (auto [p, s] : cmo) {
    PutU64(&out, p);
    PutU64(&out, s);
  }
  const uint64_t gbo_pos = out.size();
  PutU64(&out, gb0_pos);
  PutU64(&out, gb0.size());
  PutU64(&out, column_meta_start);
  PutU64(&out, cmo_pos);
  PutU64(&out, gbo_pos);
  uint32_t num_global = 1, num_columns = static_cast<uint32_t>(columns_.size());
  out.append(reinterpret_cast<const char*>(&num_global), 4);
  out.append(reinterpret_cast<const char*>(&num_columns), 4);
  out.append(reinterpret_cast<const char*>(&major), 2);
  out.append(reinterpret_cast<const char*>(&minor), 2);
  out += "LANC";
  return out;
}

pb::CompressiveEncoding FlatEncoding(uint64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}

pb::CompressiveEncoding VariableEncoding() {
  pb::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = FlatEncoding(32);
  return e;
}

FileBuilder::Page MiniBlockPage(const pb::CompressiveEncoding& values_encoding, const std::string& value_buffer,
                                uint64_t num_values, uint64_t rows, const std::vector<uint16_t>& rep,
                                const std::vector<uint16_t>& def, const std::vector<pb::RepDefLayer>& layers) {
  FileBuilder::Page page;
  page.rows = rows;
  auto* mb = page.layout.mutable_mini_block_layout();
  *mb->mutable_value_compression() = values_encoding;
  if (!rep.empty()) *mb->mutable_rep_compression() = FlatEncoding(16);
  if (!def.empty()) *mb->mutable_def_compression() = FlatEncoding(16);
  for (auto l : layers) mb->add_layers(l);
  mb->set_num_buffers(1);
  mb->set_num_items(num_values);
  mb->set_has_large_chunk(true);
  if (!rep.empty()) mb->set_repetition_index_depth(1);

  std::string chunk;
  auto put16 = [&](uint16_t v) { chunk.append(reinterpret_cast<const char*>(&v), 2); };
  auto pad8 = [&] {
    while (chunk.size() % 8 != 0) chunk.push_back(static_cast<char>(0xFE));
  };
  const uint16_t levels = static_cast<uint16_t>(std::max(rep.size(), def.size()));
  put16(levels);
  if (!rep.empty()) put16(static_cast<uint16_t>(rep.size() * 2));
  if (!def.empty()) put16(static_cast<uint16_t>(def.size() * 2));
  uint32_t vsize = static_cast<uint32_t>(value_buffer.size());
  chunk.append(reinterpret_cast<const char*>(&vsize), 4);
  pad8();
  if (!rep.empty()) {
    chunk += Bytes(rep);
    pad8();
  }
  if (!def.empty()) {
    chunk += Bytes(def);
    pad8();
  }
  chunk += value_buffer;
  pad8();
  uint32_t word = static_cast<uint32_t>((chunk.size() / 8 - 1) << 4);
  page.buffers.push_back(std::string(reinterpret_cast<const char*>(&word), 4));
  page.buffers.push_back(chunk);
  if (!rep.empty()) page.buffers.push_back(Bytes(std::vector<uint64_t>{rows, 0}));
  return page;
}

Result<OpenedFile> OpenBytes(const std::string& bytes, const std::string& path) {
  OpenedFile f;
  f.store = io::NewMemoryStore();
  RETURN_IF_ERROR(f.store->Put(path, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
  ASSIGN_OR_RETURN(auto file, f.store->OpenRead(path));
  ASSIGN_OR_RETURN(f.reader, FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
  return f;
}

}  // namespace lancet::format::testing
