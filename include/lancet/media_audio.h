/* The audio plugin's wire formats (liblancet_audio_ffmpeg.so): the bytes the core and the
 * plugin exchange through the media ABI (include/lancet/media_plugin.h) for audio blobs.
 * Codec-free: offsets and constants only, so the core (ExtractAudio, `lancet info`) and
 * other implementations can build requests and read results without FFmpeg.
 * docs/audio-plugin.md specifies every layout in full; this header is its summary.
 *
 * All integers are little-endian, floats IEEE-754 binary64. Every layout starts with a
 * 4-byte magic, a u16 version and (except requests) a u16 header size. Sample positions
 * count decoded sample frames (one sample per channel) from 0, the first sample a full
 * decode of the stored stream outputs; time t is sample t * sample rate. */
#ifndef LANCET_MEDIA_AUDIO_H_
#define LANCET_MEDIA_AUDIO_H_

#include <stdint.h>

/* ---- request (request bytes of plan/decode), 32 bytes ----------------------------------
 *   0 u32 magic LARQ   4 u16 version (1)   6 u8 kind (LANCET_AUDIO_REQ_WINDOW)
 *   7 u8 sample format (LANCET_AUDIO_FMT_*)   8 u32 out rate (0 = source)
 *  12 u32 out channels (0 = source)   16 f64 t0   24 f64 t1   (seconds, [t0, t1)) */
#define LANCET_AUDIO_REQUEST_MAGIC 0x5152414Cu /* "LARQ" */
#define LANCET_AUDIO_REQUEST_SIZE 32u
#define LANCET_AUDIO_REQ_WINDOW 1
#define LANCET_AUDIO_FMT_S16 0 /* signed 16-bit, interleaved */
#define LANCET_AUDIO_FMT_F32 1 /* 32-bit float, interleaved */

/* ---- decoded segment (decode's metadata; data holds the interleaved samples), 48 bytes -
 *   0 u32 magic LAPC   4 u16 version (1)   6 u16 header size (48)   8 u8 sample format
 *   9 u8[3] zero   12 u32 sample rate   16 u32 channels   20 u32 zero
 *  24 u64 first sample (at the output rate)   32 u64 sample count (frames)   40 f64 start (s)
 * data: sample count x channels x (2 or 4) bytes. */
#define LANCET_AUDIO_PCM_MAGIC 0x4350414Cu /* "LAPC" */
#define LANCET_AUDIO_PCM_HEADER_SIZE 48u

/* ---- stream_info (blob_info.stream_info) -----------------------------------------------
 *   0 u32 magic LASI   4 u16 version (1)   6 u16 header size (160 in version 1)
 *   8 u32 codec id (FFmpeg AVCodecID)   12 i32 profile   16 u32 sample rate   20 u32 channels
 *  24 u64 channel layout mask (0 = unspecified order)   32 i32 sample format (AVSampleFormat)
 *  36 i32 time base num   40 i32 time base den   44 u32 block align
 *  48 i64 start pts (first stored packet, time base)   56 u64 sample count (decoded)
 *  64 u64 packet count   72 i64 bit rate   80 u32 frame size   84 u32 initial padding
 *  88 u32 trailing padding   92 u32 bits per coded sample   96 u32 bits per raw sample
 * 100 u32 flags (LANCET_AUDIO_SI_*)   104 u32 pre-roll samples   108 u32 seek pre-roll
 * 112 char[16] codec name   128 char[16] sample format name
 * 144 u32 pre-roll packets   148 u32 pre-roll bytes   152 u64 group count
 * header size: u32 extradata size, then the codec extradata. */
#define LANCET_AUDIO_STREAM_INFO_MAGIC 0x4953414Cu /* "LASI" */
#define LANCET_AUDIO_STREAM_INFO_HEADER_SIZE 160u
#define LANCET_AUDIO_SI_PCM 1u /* stored in fixed blocks of LANCET_AUDIO_PCM_BLOCK samples */
#define LANCET_AUDIO_PCM_BLOCK 4096u

/* ---- entries (blob_info.entries): the position index, one record per packet group -----
 *   0 u32 magic LAIX   4 u16 version (1)   6 u16 header size (24)   8 u32 group count
 *  12 u32 zero   16 u64 packet count
 *  24 group count x 48-byte records, in stored order:
 *     0 u64 offset (of the group's packet table)   8 u64 size (table + packets)
 *    16 u64 first sample   24 u32 first packet   28 u32 packet count   32 u32 sample count
 *    36 u32 pre-roll start (the packet a decoder starting at this group's first packet
 *       starts from)   40 i64 first pts
 *
 * The stored stream (no container), group after group, each contiguous:
 *   packet table: packet count x 32-byte records, in decode order:
 *     0 u32 size   4 u32 flags (LANCET_AUDIO_PACKET_*)   8 i64 pts (time base)
 *    16 u32 sample count   20 u32 skip start   24 u32 skip end (FFmpeg skip_samples
 *       side data of the packet)   28 u32 zero
 *   then the group's packets back to back. */
#define LANCET_AUDIO_ENTRIES_MAGIC 0x5849414Cu /* "LAIX" */
#define LANCET_AUDIO_ENTRIES_HEADER_SIZE 24u
#define LANCET_AUDIO_GROUP_RECORD_SIZE 48u
#define LANCET_AUDIO_PACKET_RECORD_SIZE 32u
#define LANCET_AUDIO_PACKET_KEY 1u
#define LANCET_AUDIO_PACKET_SKIP 2u /* carries skip_samples side data */

#endif /* LANCET_MEDIA_AUDIO_H_ */
