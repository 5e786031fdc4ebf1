// Compact JSON text building and buffered output for the lancet CLI.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/result.h"

namespace lancet::cli {

/// Appends `s` to `out` as a quoted JSON string. Invalid UTF-8 becomes U+FFFD
/// (one per maximal invalid subsequence, like a non-fatal WHATWG decoder), so the
/// output is always valid JSON.
void AppendJsonString(std::string* out, std::string_view s);

/// Shortest text that reads back as exactly `v` (std::to_chars), or the strings
/// "NaN", "Infinity", "-Infinity", "-0" the dump contract uses for those values.
void AppendJsonDouble(std::string* out, double v);
/// Like AppendJsonDouble, but the shortest text for the float32 value.
void AppendJsonFloat(std::string* out, float v);

/// \brief Streams compact JSON into a string; inserts commas itself.
///
/// The caller is responsible for well-formedness (keys only inside objects,
/// balanced Begin/End); the writer only tracks separators.
class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key);
  void String(std::string_view s);
  void Int(int64_t v);
  void UInt(uint64_t v);
  /// Integer as a decimal JSON string (the contract's encoding of 64-bit values).
  void IntString(int64_t v);
  void UIntString(uint64_t v);
  void Double(double v);
  void Float(float v);
  void Bool(bool v);
  void Null();
  /// A value already rendered as JSON text.
  void Raw(std::string_view json);

  std::string* out() { return out_; }

 private:
  void BeforeValue();
  void Open(char c);
  void Close(char c);

  std::string* out_;
  std::vector<bool> has_items_;  // one entry per open container
  bool after_key_ = false;
};

/// \brief Buffered writer to stdout or a file, reporting write errors as Status.
class OutputSink {
 public:
  /// `path` empty or "-" means stdout. A file is created (truncated) now.
  static Result<std::unique_ptr<OutputSink>> Open(const std::string& path);
  ~OutputSink();
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;

  /// Text appended here is written out by Flush/MaybeFlush/Close.
  std::string& buffer() { return buffer_; }
  void Append(std::string_view s) { buffer_.append(s); }
  /// Writes the buffer once it has grown past a threshold, keeping memory bounded.
  Status MaybeFlush() { return buffer_.size() >= kFlushThreshold ? Flush() : Status::OK(); }
  Status Flush();
  /// Flushes and closes; a file that failed is removed so no partial output remains.
  Status Close();
  /// Removes a partially written file (no-op for stdout).
  void Abandon();
  const std::string& name() const { return name_; }

 private:
  static constexpr size_t kFlushThreshold = 1 << 20;
  OutputSink(std::FILE* file, std::string name, bool owned) : file_(file), name_(std::move(name)), owned_(owned) {}

  std::FILE* file_;
  std::string name_;
  bool owned_;
  std::string buffer_;
};

}  // namespace lancet::cli
