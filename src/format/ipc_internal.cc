#include "format/ipc_internal.h"

#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>
#include <memory>
#include <string>

namespace lancet::format::ipc {

namespace {

// First output allocation; later ones double, capped by the declared length.
constexpr size_t kInitialOutput = 64 << 10;

struct ZstdDctxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct Lz4DctxFree {
  void operator()(LZ4F_dctx* c) const { LZ4F_freeDecompressionContext(c); }
};

// One streaming step: consumes from *in_pos, writes into out[*out_pos, out_cap).
// Returns the codec's "frame finished" flag through *done.
using StepFn = Status (*)(void* ctx, const uint8_t* in, size_t in_size, size_t* in_pos, uint8_t* out,
                          size_t out_cap, size_t* out_pos, bool* done);

Status ZstdStep(void* ctx, const uint8_t* in, size_t in_size, size_t* in_pos, uint8_t* out, size_t out_cap,
                size_t* out_pos, bool* done) {
  ZSTD_inBuffer ib{in, in_size, *in_pos};
  ZSTD_outBuffer ob{out, out_cap, *out_pos};
  size_t ret = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(ctx), &ob, &ib);
  if (ZSTD_isError(ret)) return Status::Corruption(std::string("zstd: ") + ZSTD_getErrorName(ret));
  *in_pos = ib.pos;
  *out_pos = ob.pos;
  *done = ret == 0;
  return Status::OK();
}

Status Lz4Step(void* ctx, const uint8_t* in, size_t in_size, size_t* in_pos, uint8_t* out, size_t out_cap,
               size_t* out_pos, bool* done) {
  size_t src = in_size - *in_pos;
  size_t dst = out_cap - *out_pos;
  size_t ret = LZ4F_decompress(static_cast<LZ4F_dctx*>(ctx), out + *out_pos, &dst, in + *in_pos, &src, nullptr);
  if (LZ4F_isError(ret)) return Status::Corruption(std::string("lz4: ") + LZ4F_getErrorName(ret));
  *in_pos += src;
  *out_pos += dst;
  *done = ret == 0;
  return Status::OK();
}

Result<BufferPtr> StreamDecompress(void* ctx, StepFn step, std::span<const uint8_t> data, uint64_t expected) {
  std::vector<uint8_t> out;
  size_t produced = 0;
  size_t in_pos = 0;
  bool done = data.empty();
  while (!(done && in_pos == data.size())) {
    uint8_t probe = 0;
    uint8_t* dst = out.data();
    size_t cap = out.size();
    if (produced == out.size()) {
      if (out.size() == expected) {
        // Full: any further output means the prefix understated the length.
        dst = &probe;
        cap = 1;
      } else {
        size_t next = static_cast<size_t>(std::min<uint64_t>(expected, std::max(kInitialOutput, out.size() * 2)));
        out.resize(next);
        dst = out.data();
        cap = out.size();
      }
    }
    size_t before_in = in_pos;
    size_t out_pos = dst == &probe ? 0 : produced;
    RETURN_IF_ERROR(step(ctx, data.data(), data.size(), &in_pos, dst, cap, &out_pos, &done));
    if (dst == &probe) {
      if (out_pos > 0) return Status::Corruption("compressed buffer is longer than its declared length");
    } else {
      if (out_pos == produced && in_pos == before_in) {
        return Status::Corruption("compressed buffer is truncated");
      }
      produced = out_pos;
    }
    if (dst == &probe && in_pos == before_in && !(done && in_pos == data.size())) {
      return Status::Corruption("compressed buffer is truncated or has trailing bytes");
    }
  }
  if (produced != expected) {
    return Status::Corruption("compressed buffer decodes to " + std::to_string(produced) + " bytes, declared " +
                              std::to_string(expected));
  }
  out.resize(produced);
  return BufferPtr(Buffer::FromVector(std::move(out)));
}

}  // namespace

Result<std::vector<uint8_t>> Compress(Codec codec, std::span<const uint8_t> data, int zstd_level) {
  std::vector<uint8_t> out;
  if (codec == Codec::kZstd) {
    out.resize(ZSTD_compressBound(data.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), zstd_level);
    if (ZSTD_isError(n)) return Status::Internal(std::string("zstd compress: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
  }
  LZ4F_preferences_t prefs{};
  // Arrow readers (C++, Rust) expect the content size in the frame header.
  prefs.frameInfo.contentSize = data.size();
  out.resize(LZ4F_compressFrameBound(data.size(), &prefs));
  size_t n = LZ4F_compressFrame(out.data(), out.size(), data.data(), data.size(), &prefs);
  if (LZ4F_isError(n)) return Status::Internal(std::string("lz4 compress: ") + LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

Result<BufferPtr> Decompress(Codec codec, std::span<const uint8_t> data, uint64_t expected) {
  if (expected > kMaxAllocation) return Status::Corruption("compressed buffer declares an absurd length");
  if (codec == Codec::kZstd) {
    // A zstd context costs far more to create than a small buffer costs to
    // decode, so each thread keeps one and resets it per buffer.
    thread_local std::unique_ptr<ZSTD_DCtx, ZstdDctxFree> ctx(ZSTD_createDCtx());
    if (!ctx) return Status::Internal("zstd: cannot create context");
    ZSTD_DCtx_reset(ctx.get(), ZSTD_reset_session_only);
    return StreamDecompress(ctx.get(), ZstdStep, data, expected);
  }
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return Status::Internal("lz4: cannot create context");
  }
  std::unique_ptr<LZ4F_dctx, Lz4DctxFree> ctx(raw);
  return StreamDecompress(ctx.get(), Lz4Step, data, expected);
}

}  // namespace lancet::format::ipc
