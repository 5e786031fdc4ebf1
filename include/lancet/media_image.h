/* The image plugin's wire formats (liblancet_image.so): the bytes the core and the plugin
 * exchange through the media ABI (include/lancet/media_plugin.h) for image blobs.
 * Codec-free: offsets and constants only. docs/image-plugin.md specifies every layout in
 * full; this header is its summary.
 *
 * All integers are little-endian. Every layout starts with a 4-byte magic and a u16
 * version; all but requests then carry a u16 header size, so a later version can append
 * fields. Pages count from 0 in file order; pixel coordinates from the page's top left. */
#ifndef LANCET_MEDIA_IMAGE_H_
#define LANCET_MEDIA_IMAGE_H_

#include <stdint.h>

/* ---- request (request bytes of plan/decode), 32 bytes ----------------------------------
 *   0 u32 magic LIRQ   4 u16 version (1)   6 u8 kind (LANCET_IMAGE_REQ_*)   7 u8 zero
 *   8 u32 page        12 u32 x   16 u32 y   20 u32 w   24 u32 h   (REGION; else zero)
 *  28 u32 thumbnail size (THUMBNAIL: the longer side of the output; else zero)
 * A region must lie inside the page and be non-empty. A thumbnail keeps the aspect ratio
 * (the shorter side rounds, at least 1) and never enlarges: a size at or above the page's
 * longer side returns the page as is. */
#define LANCET_IMAGE_REQUEST_MAGIC 0x5152494Cu /* "LIRQ" */
#define LANCET_IMAGE_REQUEST_SIZE 32u
#define LANCET_IMAGE_REQ_PAGE 1
#define LANCET_IMAGE_REQ_REGION 2
#define LANCET_IMAGE_REQ_THUMBNAIL 3

/* Pixel layouts of decoded images (the values of LANCET_VIDEO_PIX_* for the same layouts;
 * 2 is video's yuv420p, never an image's). TIFF pages are gray8 or rgb24; GIF and WebP
 * frames rgba32 (R, G, B, A bytes, not premultiplied). */
#define LANCET_IMAGE_PIX_RGB24 0
#define LANCET_IMAGE_PIX_GRAY8 1
#define LANCET_IMAGE_PIX_RGBA32 3

/* ---- decoded image (decode's metadata; decode's data holds the pixels) -----------------
 *   0 u32 magic LIDM   4 u16 version (1)   6 u16 header size (40)   8 u32 page
 *  12 u32 width   16 u32 height   (of the output)   20 u8 pixel format   21 u8[3] zero
 *  24 u32 page width   28 u32 page height   32 u32 x   36 u32 y   (the output's top left
 *     on the page; 0, 0 for pages and thumbnails)
 * data: width x height pixels, rows tightly packed, 3 bytes (RGB), 1 (gray) or 4 (RGBA)
 * each. For GIF and WebP the page is the frame and the page size the canvas size. */
#define LANCET_IMAGE_DECODED_MAGIC 0x4D44494Cu /* "LIDM" */
#define LANCET_IMAGE_DECODED_SIZE 40u

/* ---- stream_info (blob_info.stream_info), 24 bytes (version 1, TIFF and PDF) or 40
 * (version 2, GIF and WebP) ---------------------------------------------------------------
 *   0 u32 magic LISI   4 u16 version (1 or 2)   6 u16 header size (24 or 40)   8 u8 format
 *   (LANCET_IMAGE_FORMAT_*)   9 u8[3] zero   12 u32 page (frame) count   16 u64 source bytes
 *  version 2 only:
 *  24 u32 canvas width   28 u32 canvas height   32 u32 loop count (0: forever)
 *  36 u8[4] background colour R, G, B, A (recorded, never painted: canvases start
 *     transparent) */
#define LANCET_IMAGE_STREAM_INFO_MAGIC 0x4953494Cu /* "LISI" */
#define LANCET_IMAGE_STREAM_INFO_SIZE 24u
#define LANCET_IMAGE_STREAM_INFO_V2_SIZE 40u
#define LANCET_IMAGE_FORMAT_TIFF 1
#define LANCET_IMAGE_FORMAT_GIF 2
#define LANCET_IMAGE_FORMAT_WEBP 3
/* A PDF rendered at ingest: the stored stream is a TIFF of its pages (entries as TIFF). */
#define LANCET_IMAGE_FORMAT_PDF 4

/* ---- entries (blob_info.entries): the position index ------------------------------------
 *   0 u32 magic LIIX   4 u16 version (1)   6 u16 header size (24)   8 u32 page count
 *  12 u32 zero   16 u64 chunk count (all pages)
 *  24 page count x 48-byte page records, in file order:
 *     0 u32 width   4 u32 height   8 u32 chunk width   12 u32 chunk height
 *    16 u16 samples per pixel   18 u16 bits per sample   20 u16 photometric   22 u16 compression
 *    24 u16 predictor (TIFF tag values)   26 u8 flags (LANCET_IMAGE_PAGE_*)   27 u8 zero
 *    28 u32 chunk count   32 u64 first chunk (chunks of earlier pages)
 *    40 u32 JPEG tables size   44 u32 zero
 *  then chunk count x 16-byte chunk records, page after page, each page's chunks in TIFF
 *  order (row-major over the tile or strip grid):
 *     0 u64 offset in the stored stream   8 u64 size (0: the chunk was never written; its
 *       pixels are zero)
 *  then every page's JPEG tables, back to back in page order.
 * A chunk is a tile (flag TILED) or a strip (the page's width x chunk height rows; the
 * last strip may hold fewer). The stored stream is the source TIFF file, byte for byte. */
#define LANCET_IMAGE_ENTRIES_MAGIC 0x5849494Cu /* "LIIX" */
#define LANCET_IMAGE_ENTRIES_HEADER_SIZE 24u
#define LANCET_IMAGE_PAGE_RECORD_SIZE 48u
#define LANCET_IMAGE_CHUNK_RECORD_SIZE 16u
#define LANCET_IMAGE_PAGE_TILED 1u

/* ---- frame entries (blob_info.entries of GIF and WebP): the frame index ----------------
 *   0 u32 magic LIFX   4 u16 version (1)   6 u16 header size (24)   8 u32 frame count
 *  12 u32 zero   16 u64 header bytes n: a copy of [0, n) of the stored stream, which
 *     every frame's decode needs, follows the records (GIF: header, screen descriptor,
 *     global colour table, at most 781 bytes; WebP: 0)
 *  24 frame count x 56-byte frame records, in file order:
 *     0 u64 range offset   8 u64 range size (the bytes plan reads for the frame)
 *    16 u32 data start (the frame's decodable bytes, from the range's start)
 *    20 u32 restart frame (the latest frame <= this one compositing can start at, on a
 *       transparent canvas)
 *    24 u64 data size   32 u32 x   36 u32 y   40 u32 width   44 u32 height (on the canvas)
 *    48 u32 duration (ms)   52 u8 disposal (LANCET_IMAGE_DISPOSE_*)
 *    53 u8 blend (LANCET_IMAGE_BLEND_*)   54 u8 flags (LANCET_IMAGE_FRAME_*)   55 u8 zero
 *  then the n header bytes.
 * The stored stream is the source file, byte for byte. */
#define LANCET_IMAGE_FRAMES_MAGIC 0x5846494Cu /* "LIFX" */
#define LANCET_IMAGE_FRAMES_HEADER_SIZE 24u
#define LANCET_IMAGE_FRAME_RECORD_SIZE 56u
#define LANCET_IMAGE_DISPOSE_NONE 0
#define LANCET_IMAGE_DISPOSE_BACKGROUND 1
#define LANCET_IMAGE_DISPOSE_PREVIOUS 2
#define LANCET_IMAGE_BLEND_REPLACE 0
#define LANCET_IMAGE_BLEND_OVER 1
#define LANCET_IMAGE_FRAME_ALPHA 1u

#endif /* LANCET_MEDIA_IMAGE_H_ */
