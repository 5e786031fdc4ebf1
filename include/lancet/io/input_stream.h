// InputStream: bytes read front to back (a pipe, standard input, a file read once),
// for formats that arrive as a stream rather than as random-access objects.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lancet/buffer.h"
#include "lancet/result.h"

namespace lancet::io {

/// \brief A sequential byte source. Not thread-safe.
class InputStream {
 public:
  virtual ~InputStream() = default;
  /// What the bytes come from (for error messages).
  virtual const std::string& name() const = 0;
  /// The next `n` bytes; fewer only where the input ends (an empty buffer after the
  /// end). Memory grows with the bytes that really arrive, never with `n` alone, so a
  /// hostile length prefix cannot make a large allocation. IOError on a read error.
  virtual Result<BufferPtr> Read(uint64_t n) = 0;
};

/// Opens the local file `path` for reading once, front to back ("-" is standard input).
/// NotFound when it does not exist.
Result<std::unique_ptr<InputStream>> OpenInputStream(const std::string& path);

/// The bytes of `bytes`, handed out as views (no copies).
std::unique_ptr<InputStream> InputStreamFromBuffer(BufferPtr bytes, std::string name = "buffer");

/// `head` followed by what `rest` still holds: puts back bytes a caller peeked at.
std::unique_ptr<InputStream> PrependToStream(BufferPtr head, std::unique_ptr<InputStream> rest);

}  // namespace lancet::io
