// FFmpeg glue shared by ingest and decode: codec parameters rebuilt from stream_info
// (decode sees only stored bytes), the one way packets are fed to the decoder, and a
// temporary file that never outlives its owner.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

#include "audio_internal.h"

namespace lancet_audio {

void Fail(int code, std::string message) { throw Error{code, std::move(message)}; }

std::string AvErrorText(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {0};
  av_strerror(code, text, sizeof text);
  return text;
}

bool IsPcm(uint32_t codec_id) {
  // The raw PCM codecs are the first block of audio codec ids; a fixed sample size tells
  // the ones without per-packet headers (not pcm_dvd, pcm_bluray, ...).
  return codec_id >= AV_CODEC_ID_FIRST_AUDIO && codec_id < AV_CODEC_ID_ADPCM_IMA_QT &&
         av_get_exact_bits_per_sample(static_cast<AVCodecID>(codec_id)) > 0;
}

AVCodecParameters* MakeCodecParameters(const StreamInfo& si) {
  AVCodecParameters* par = avcodec_parameters_alloc();
  if (par == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory for codec parameters");
  par->codec_type = AVMEDIA_TYPE_AUDIO;
  par->codec_id = static_cast<AVCodecID>(si.codec_id);
  par->profile = si.profile;
  par->sample_rate = static_cast<int>(si.sample_rate);
  if (si.layout_mask != 0) {
    av_channel_layout_from_mask(&par->ch_layout, si.layout_mask);
  } else {
    av_channel_layout_uninit(&par->ch_layout);
    par->ch_layout.order = AV_CHANNEL_ORDER_UNSPEC;
    par->ch_layout.nb_channels = static_cast<int>(si.channels);
  }
  // Hostile enum values would reach av_get_*_name lookups.
  par->format = si.sample_format >= -1 && si.sample_format < AV_SAMPLE_FMT_NB ? si.sample_format : -1;
  par->block_align = static_cast<int>(si.block_align);
  par->frame_size = static_cast<int>(si.frame_size);
  par->initial_padding = static_cast<int>(si.initial_padding & 0x7fffffff);
  par->trailing_padding = static_cast<int>(si.trailing_padding & 0x7fffffff);
  par->seek_preroll = static_cast<int>(si.seek_preroll & 0x7fffffff);
  par->bits_per_coded_sample = static_cast<int>(si.bits_per_coded_sample & 0xff);
  par->bits_per_raw_sample = static_cast<int>(si.bits_per_raw_sample & 0xff);
  par->bit_rate = si.bit_rate > 0 ? si.bit_rate : 0;
  if (!si.extradata.empty()) {
    par->extradata = static_cast<uint8_t*>(av_mallocz(si.extradata.size() + AV_INPUT_BUFFER_PADDING_SIZE));
    if (par->extradata == nullptr) {
      avcodec_parameters_free(&par);
      Fail(LANCET_MEDIA_ENOMEM, "out of memory for extradata");
    }
    std::memcpy(par->extradata, si.extradata.data(), si.extradata.size());
    par->extradata_size = static_cast<int>(si.extradata.size());
  }
  return par;
}

Decoder::Decoder(const StreamInfo& si) {
  const AVCodec* codec = avcodec_find_decoder(static_cast<AVCodecID>(si.codec_id));
  if (codec == nullptr || codec->type != AVMEDIA_TYPE_AUDIO) {
    Fail(LANCET_MEDIA_ENOTSUP,
         "no audio decoder for codec id " + std::to_string(si.codec_id) + " (" + si.codec_name + ")");
  }
  ctx_ = avcodec_alloc_context3(codec);
  frame_ = av_frame_alloc();
  packet_ = av_packet_alloc();
  if (ctx_ == nullptr || frame_ == nullptr || packet_ == nullptr) {
    Free();
    Fail(LANCET_MEDIA_ENOMEM, "out of memory for the decoder");
  }
  AVCodecParameters* par = MakeCodecParameters(si);
  int rc = avcodec_parameters_to_context(ctx_, par);
  avcodec_parameters_free(&par);
  if (rc >= 0) {
    ctx_->pkt_timebase = AVRational{si.time_base_num, si.time_base_den};
    // One thread: audio decoders are fast, and frame threading would delay output.
    ctx_->thread_count = 1;
    rc = avcodec_open2(ctx_, codec, nullptr);
  }
  if (rc < 0) {
    Free();
    Fail(LANCET_MEDIA_ECORRUPT, std::string("cannot open the ") + codec->name + " decoder: " + AvErrorText(rc));
  }
}

Decoder::~Decoder() { Free(); }

void Decoder::Free() {
  av_packet_free(&packet_);
  av_frame_free(&frame_);
  avcodec_free_context(&ctx_);
}

int Decoder::Send(const uint8_t* data, const PacketRecord& p) {
  if (av_new_packet(packet_, static_cast<int>(p.size)) < 0) Fail(LANCET_MEDIA_ENOMEM, "out of memory for a packet");
  std::memcpy(packet_->data, data, p.size);
  packet_->pts = p.pts;
  packet_->dts = p.pts;
  if (p.flags & LANCET_AUDIO_PACKET_KEY) packet_->flags |= AV_PKT_FLAG_KEY;
  if (p.flags & LANCET_AUDIO_PACKET_SKIP) {
    // The demuxer's priming/padding trim, given back exactly as it came (10 bytes: skip
    // start, skip end, two reasons) so the decoder trims as in a full decode.
    uint8_t* side = av_packet_new_side_data(packet_, AV_PKT_DATA_SKIP_SAMPLES, 10);
    if (side == nullptr) {
      av_packet_unref(packet_);
      Fail(LANCET_MEDIA_ENOMEM, "out of memory for side data");
    }
    PutU32(side, p.skip_start);
    PutU32(side + 4, p.skip_end);
    side[8] = side[9] = 0;
  }
  const int rc = avcodec_send_packet(ctx_, packet_);
  av_packet_unref(packet_);
  return rc;
}

int Decoder::SendFlush() { return avcodec_send_packet(ctx_, nullptr); }

const AVFrame* Decoder::Receive() {
  av_frame_unref(frame_);
  const int rc = avcodec_receive_frame(ctx_, frame_);
  if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return nullptr;
  if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "the decoder failed: " + AvErrorText(rc));
  return frame_;
}

TempFile::TempFile() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && dir[0] != 0 ? dir : "/tmp") + "/lancet-audio-XXXXXX";
  fd_ = mkstemp(path.data());
  if (fd_ < 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot create a temporary file in " + path + ": " + strerror(errno));
  // Reached through the descriptor only: nothing is left behind even if the process dies.
  unlink(path.c_str());
}

TempFile::~TempFile() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace lancet_audio
