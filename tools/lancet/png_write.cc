#include "lancet/png_write.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lancet::cli {
namespace {

void PutU32(std::vector<uint8_t>& out, uint32_t v) {
  const uint8_t b[4] = {static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8),
                        static_cast<uint8_t>(v)};
  out.insert(out.end(), b, b + 4);
}

// A chunk: length, type, data, CRC-32 over type and data.
void PutChunk(std::vector<uint8_t>& out, const char type[4], std::span<const uint8_t> data) {
  PutU32(out, static_cast<uint32_t>(data.size()));
  const size_t type_at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, out.data() + type_at, static_cast<uInt>(4 + data.size()));
  PutU32(out, static_cast<uint32_t>(crc));
}

}  // namespace

Result<std::vector<uint8_t>> EncodePng(std::span<const uint8_t> pixels, uint32_t width, uint32_t height, int channels) {
  if ((channels != 1 && channels != 3 && channels != 4) || width == 0 || height == 0 || width > (1u << 16) ||
      height > (1u << 16)) {
    return Status::InvalidArgument("PNG of " + std::to_string(width) + "x" + std::to_string(height) + " with " +
                                   std::to_string(channels) + " channels is not supported");
  }
  const uint64_t row = uint64_t{width} * static_cast<uint64_t>(channels);
  if (pixels.size() != row * height) {
    return Status::InvalidArgument("PNG of " + std::to_string(width) + "x" + std::to_string(height) + "x" +
                                   std::to_string(channels) + " needs " + std::to_string(row * height) +
                                   " bytes, got " + std::to_string(pixels.size()));
  }
  // Each row starts with its filter type; "Sub" (1) predicts a byte from the pixel on its
  // left, which shrinks smooth images a lot for one subtraction per byte.
  std::vector<uint8_t> filtered(static_cast<size_t>((row + 1) * height));
  for (uint64_t y = 0; y < height; ++y) {
    uint8_t* dst = filtered.data() + y * (row + 1);
    const uint8_t* src = pixels.data() + y * row;
    dst[0] = 1;
    for (uint64_t x = 0; x < row; ++x) {
      dst[1 + x] = static_cast<uint8_t>(src[x] - (x >= static_cast<uint64_t>(channels) ? src[x - channels] : 0));
    }
  }
  uLongf packed_size = compressBound(static_cast<uLong>(filtered.size()));
  std::vector<uint8_t> packed(packed_size);
  if (compress2(packed.data(), &packed_size, filtered.data(), static_cast<uLong>(filtered.size()), 6) != Z_OK) {
    return Status::IOError("zlib could not compress a " + std::to_string(width) + "x" + std::to_string(height) +
                           " PNG");
  }
  packed.resize(packed_size);
  std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  PutU32(ihdr, width);
  PutU32(ihdr, height);
  // bit depth 8; colour type 0 (gray), 2 (RGB) or 6 (RGBA, not premultiplied, as PNG
  // wants); deflate, adaptive filtering, no interlace
  const uint8_t colour = channels == 1 ? 0 : channels == 3 ? 2 : 6;
  const uint8_t rest[5] = {8, colour, 0, 0, 0};
  ihdr.insert(ihdr.end(), rest, rest + 5);
  PutChunk(out, "IHDR", ihdr);
  PutChunk(out, "IDAT", packed);
  PutChunk(out, "IEND", {});
  return out;
}

Status WritePng(const std::string& path, std::span<const uint8_t> pixels, uint32_t width, uint32_t height,
                int channels) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> png, EncodePng(pixels, width, height, channels));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IOError(path + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(png.data(), 1, png.size(), f) == png.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::remove(path.c_str());
    return Status::IOError(path + ": write failed");
  }
  return Status::OK();
}

}  // namespace lancet::cli
