#include "lancet/json_writer.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

namespace lancet::cli {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if the bytes there do
// not start one (RFC 3629 table: no overlongs, no surrogates, nothing past U+10FFFF).
size_t ValidUtf8Length(std::string_view s, size_t i, size_t* invalid_prefix) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    *invalid_prefix = 1;
    return 0;
  }
  // A truncated or broken sequence is replaced as one unit up to the first bad byte.
  size_t k = 1;
  for (; k < need; ++k) {
    if (i + k >= s.size()) break;
    uint8_t b = byte(i + k);
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) break;
  }
  if (k == need) return need;
  *invalid_prefix = k;
  return 0;
}

void AppendChars(std::string* out, const char* begin, const char* end) { out->append(begin, end); }

}  // namespace

void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out->append("\\\""); break;
        case '\\': out->append("\\\\"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        case '\b': out->append("\\b"); break;
        case '\f': out->append("\\f"); break;
        default:
          if (c < 0x20) {
            out->append("\\u00");
            out->push_back(kHex[c >> 4]);
            out->push_back(kHex[c & 15]);
          } else {
            out->push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    size_t bad = 0;
    size_t n = ValidUtf8Length(s, i, &bad);
    if (n > 0) {
      out->append(s.substr(i, n));
      i += n;
    } else {
      out->append("\xEF\xBF\xBD");
      i += bad;
    }
  }
  out->push_back('"');
}

void AppendJsonDouble(std::string* out, double v) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else if (v == 0 && std::signbit(v)) {
    out->append("\"-0\"");
  } else {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    AppendChars(out, buf, r.ptr);
  }
}

void AppendJsonFloat(std::string* out, float v) {
  if (std::isnan(v) || std::isinf(v) || (v == 0 && std::signbit(v))) {
    AppendJsonDouble(out, v);
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  AppendChars(out, buf, r.ptr);
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_->push_back(',');
    has_items_.back() = true;
  }
}

void JsonWriter::Open(char c) {
  BeforeValue();
  out_->push_back(c);
  has_items_.push_back(false);
}

void JsonWriter::Close(char c) {
  out_->push_back(c);
  if (!has_items_.empty()) has_items_.pop_back();
}

void JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendJsonString(out_, key);
  out_->push_back(':');
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendJsonString(out_, s);
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  AppendChars(out_, buf, r.ptr);
}

void JsonWriter::UInt(uint64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  AppendChars(out_, buf, r.ptr);
}

void JsonWriter::IntString(int64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out_->push_back('"');
  AppendChars(out_, buf, r.ptr);
  out_->push_back('"');
}

void JsonWriter::UIntString(uint64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out_->push_back('"');
  AppendChars(out_, buf, r.ptr);
  out_->push_back('"');
}

void JsonWriter::Double(double v) {
  BeforeValue();
  AppendJsonDouble(out_, v);
}

void JsonWriter::Float(float v) {
  BeforeValue();
  AppendJsonFloat(out_, v);
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  out_->append(v ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
}

void JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_->append(json);
}

Result<std::unique_ptr<OutputSink>> OutputSink::Open(const std::string& path) {
  if (path.empty() || path == "-") {
    return std::unique_ptr<OutputSink>(new OutputSink(stdout, "<stdout>", false));
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IOError(path + ": cannot create: " + std::strerror(errno));
  return std::unique_ptr<OutputSink>(new OutputSink(f, path, true));
}

OutputSink::~OutputSink() {
  if (owned_ && file_ != nullptr) std::fclose(file_);
}

Status OutputSink::Flush() {
  if (file_ == nullptr) return Status::IOError(name_ + ": already closed");
  if (!buffer_.empty()) {
    size_t n = std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
    const bool short_write = n != buffer_.size();
    buffer_.clear();
    if (short_write || std::ferror(file_)) return Status::IOError(name_ + ": write failed: " + std::strerror(errno));
  }
  return Status::OK();
}

Status OutputSink::Close() {
  Status st = Flush();
  if (file_ != nullptr) {
    int rc = owned_ ? std::fclose(file_) : std::fflush(file_);
    if (rc != 0 && st.ok()) st = Status::IOError(name_ + ": write failed: " + std::strerror(errno));
    file_ = nullptr;
  }
  if (!st.ok() && owned_) std::remove(name_.c_str());
  return st;
}

void OutputSink::Abandon() {
  buffer_.clear();
  if (owned_ && file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
    std::remove(name_.c_str());
  }
}

}  // namespace lancet::cli
