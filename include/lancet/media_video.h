/* The video plugin's wire formats (liblancet_video_ffmpeg.so): the bytes the core and the
 * plugin exchange through the media ABI (include/lancet/media_plugin.h) for video blobs.
 * Codec-free: offsets and constants only, so the core (ExtractFrames, `lancet info`) and
 * other implementations can build requests and read results without FFmpeg.
 * docs/video-plugin.md specifies every layout in full; this header is its summary.
 *
 * All integers are little-endian, floats IEEE-754 binary64. Every layout starts with a
 * 4-byte magic, a u16 version and (except requests) a u16 header size, so a reader of
 * given version rejects anything else and a later version can append fields. Unknown pts are
 * INT64_MIN (FFmpeg's AV_NOPTS_VALUE). Frame indices count frames in presentation order
 * from 0. */
#ifndef LANCET_MEDIA_VIDEO_H_
#define LANCET_MEDIA_VIDEO_H_

#include <stdint.h>

/* ---- request (request bytes of plan/decode) -------------------------------------------
 *   0 u32 magic LVRQ          4 u16 version (1)     6 u8 kind (LANCET_VIDEO_REQ_*)
 *   7 u8 flags (LANCET_VIDEO_FLAG_*)                8 u8 pixel format (LANCET_VIDEO_PIX_*)
 *   9 u8[3] zero             12 u32 out width (0 = source)   16 u32 out height (0 = source)
 *  20 u32 decoder threads (0 = plugin default)
 *  24 payload:
 *     WINDOW, CLIP:  f64 t0, f64 t1 (seconds on the stream's clock, [t0, t1))
 *     FRAMES:        u32 count, u32 zero, count x u64 frame index
 *     TIMESTAMPS:    u32 count, u32 zero, count x f64 seconds (the frame shown at that time)
 * Out width/height: both 0 keeps the source size; one 0 keeps the aspect ratio. */
#define LANCET_VIDEO_REQUEST_MAGIC 0x5152564Cu /* "LVRQ" */
#define LANCET_VIDEO_REQUEST_HEADER_SIZE 24u
#define LANCET_VIDEO_REQ_WINDOW 1
#define LANCET_VIDEO_REQ_FRAMES 2
#define LANCET_VIDEO_REQ_TIMESTAMPS 3
#define LANCET_VIDEO_REQ_CLIP 4 /* remux the GOPs covering [t0, t1) to MP4, no re-encode */
#define LANCET_VIDEO_FLAG_KEYFRAMES_ONLY 1u
/* libswscale's fast path (bilinear, SIMD rounding): about 3x cheaper than the default
 * bit-exact bicubic conversion, pixels may differ by CPU. Frames requests only. */
#define LANCET_VIDEO_FLAG_FAST_CONVERT 2u
#define LANCET_VIDEO_PIX_RGB24 0
#define LANCET_VIDEO_PIX_GRAY8 1
#define LANCET_VIDEO_PIX_YUV420P 2

/* ---- decoded frames (decode's metadata; decode's data holds the pixels) ---------------
 *   0 u32 magic LVFM   4 u16 version (1)   6 u16 header size (16)   8 u32 count  12 u32 zero
 *  16 count x 56-byte records, in ascending frame index:
 *     0 u64 frame index   8 i64 pts   16 f64 time (s)   24 u32 width   28 u32 height
 *    32 u8 pixel format (LANCET_VIDEO_PIX_*)  33 u8[7] zero
 *    40 u64 offset of the pixels in data   48 u64 size
 * Pixels are tightly packed, rows without padding; YUV420P is the Y plane then U then V,
 * chroma planes of ceil(w/2) x ceil(h/2). */
#define LANCET_VIDEO_FRAMES_MAGIC 0x4D46564Cu /* "LVFM" */
#define LANCET_VIDEO_FRAMES_HEADER_SIZE 16u
#define LANCET_VIDEO_FRAME_RECORD_SIZE 56u

/* ---- decoded clip (decode's metadata for REQ_CLIP; data holds a playable MP4) ---------
 *   0 u32 magic LVCL   4 u16 version (1)   6 u16 header size (32)   8 u64 frame count
 *  16 f64 start time (s) of the first frame in the clip   24 f64 end time (s) */
#define LANCET_VIDEO_CLIP_MAGIC 0x4C43564Cu /* "LVCL" */
#define LANCET_VIDEO_CLIP_HEADER_SIZE 32u

/* ---- stream_info (blob_info.stream_info) -----------------------------------------------
 *   0 u32 magic LVSI    4 u16 version (1)    6 u16 header size (160 in version 1)
 *   8 u32 codec id (FFmpeg AVCodecID)   12 i32 profile   16 i32 level
 *  20 u32 width   24 u32 height   28 i32 pixel format (FFmpeg AVPixelFormat)
 *  32 i32 time base num   36 i32 time base den   40 i32 frame rate num   44 i32 frame rate den
 *  48 i64 start pts (first frame shown, time base)   56 i64 duration (time base)
 *  64 u64 frame count   72 u64 GOP count   80 i32 SAR num   84 i32 SAR den
 *  88 u32 video delay (reorder depth; 0 = no B-frames)   92 u32 flags (LANCET_VIDEO_SI_*)
 *  96 i32 color range  100 i32 color primaries  104 i32 color trc  108 i32 colorspace
 * 112 i32 chroma location  116 i32 field order  120 i64 bit rate (bit/s, 0 = unknown)
 * 128 char[16] codec name (NUL-padded, e.g. "h264")  144 char[16] pixel format name
 * header size: u32 extradata size, then the codec extradata (e.g. avcC with SPS/PPS). */
#define LANCET_VIDEO_STREAM_INFO_MAGIC 0x4953564Cu /* "LVSI" */
#define LANCET_VIDEO_STREAM_INFO_HEADER_SIZE 160u
#define LANCET_VIDEO_SI_OPEN_GOP 1u
#define LANCET_VIDEO_SI_B_FRAMES 2u

/* ---- entries (blob_info.entries): the position index, one record per GOP --------------
 *   0 u32 magic LVIX   4 u16 version (3; 2 is read too)   6 u16 header size (24)
 *   8 u32 GOP count   12 u32 zero  16 u64 packet count (all GOPs)
 *  24 GOP count x 208-byte records (80 in version 2), in stored order:
 *     0 u64 offset in the stored stream (of the GOP's packet table)
 *     8 u64 size (packet table + packets)   16 i64 first pts (min pts in the GOP)
 *    24 i64 last pts (max pts in the GOP)   32 i64 key pts   40 i64 key dts
 *    48 u32 first packet (packets in earlier GOPs)   52 u32 packet count   56 u32 frame count
 *    60 u32 flags (bit 0: open GOP)   64 u32 table size (packet count x 32)
 *    68 u32 key size (bytes of the keyframe packet)   72 u32 leading count (frames shown
 *       before the keyframe)   76 u32 zero
 *    80 u32[16] rank prefixes: [c] = bytes from the GOP's offset through the last packet
 *       (decode order) any frame of presentation rank < ceil((c+1) n / 16) needs, n the
 *       frame count; so rank r is covered by [floor(16 r / n)]
 *   144 u32[16] time prefixes: [c] = the same for every frame with pts below
 *       first pts + ceil((c+1) (last pts - first pts + 1) / 16)
 *       Both non-decreasing, within [table size + key size, size], [15] = size.
 *       (Version 2 has neither: readers take every prefix as the whole GOP.)
 * GOPs are in presentation order too: each GOP's first pts is above the last pts of the
 * GOP before, so frame index i lies in the GOP whose cumulative frame counts bracket it.
 *
 * The stored stream (no container), GOP after GOP, each one contiguous:
 *   packet table: packet count x 32-byte records, in decode order:
 *     0 u64 offset from the GOP's first packet byte (offset + table size)
 *     8 u32 size   12 u32 flags (bit 0: keyframe; only the first packet)  16 i64 pts  24 i64 dts
 *   then the GOP's packets in decode order, back to back.
 * So [offset, offset + table size + key size) holds the table and the keyframe. */
#define LANCET_VIDEO_ENTRIES_MAGIC 0x5849564Cu /* "LVIX" */
#define LANCET_VIDEO_ENTRIES_VERSION 3u
#define LANCET_VIDEO_ENTRIES_HEADER_SIZE 24u
#define LANCET_VIDEO_GOP_RECORD_SIZE 208u
#define LANCET_VIDEO_GOP_RECORD_SIZE_V2 80u
#define LANCET_VIDEO_GOP_CHECKPOINTS 16u
#define LANCET_VIDEO_PACKET_RECORD_SIZE 32u
#define LANCET_VIDEO_GOP_OPEN 1u
#define LANCET_VIDEO_PACKET_KEY 1u

#endif /* LANCET_MEDIA_VIDEO_H_ */
