// FFmpeg glue shared by ingest, decode and clip: codec parameters rebuilt from stream_info
// (decode sees only stored bytes) and a temporary file that never outlives its owner.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

#include "video_internal.h"

namespace lancet_video {

void Fail(int code, std::string message) { throw Error{code, std::move(message)}; }

std::string AvErrorText(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {0};
  av_strerror(code, text, sizeof text);
  return text;
}

AVCodecParameters* MakeCodecParameters(const StreamInfo& si) {
  AVCodecParameters* par = avcodec_parameters_alloc();
  if (par == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory for codec parameters");
  par->codec_type = AVMEDIA_TYPE_VIDEO;
  par->codec_id = static_cast<AVCodecID>(si.codec_id);
  par->profile = si.profile;
  par->level = si.level;
  par->width = static_cast<int>(si.width);
  par->height = static_cast<int>(si.height);
  par->format = si.pixel_format;
  par->sample_aspect_ratio = AVRational{si.sar_num, si.sar_den > 0 ? si.sar_den : 1};
  par->video_delay = static_cast<int>(si.video_delay > 16 ? 16 : si.video_delay);
  // Hostile enum values would reach av_*_name lookups; out-of-range ones fall back to unknown.
  auto in = [](int32_t v, int32_t hi) { return v >= 0 && v < hi; };
  par->color_range =
      in(si.color_range, AVCOL_RANGE_NB) ? static_cast<AVColorRange>(si.color_range) : AVCOL_RANGE_UNSPECIFIED;
  par->color_primaries =
      in(si.color_primaries, AVCOL_PRI_NB) ? static_cast<AVColorPrimaries>(si.color_primaries) : AVCOL_PRI_UNSPECIFIED;
  par->color_trc =
      in(si.color_trc, AVCOL_TRC_NB) ? static_cast<AVColorTransferCharacteristic>(si.color_trc) : AVCOL_TRC_UNSPECIFIED;
  par->color_space = in(si.colorspace, AVCOL_SPC_NB) ? static_cast<AVColorSpace>(si.colorspace) : AVCOL_SPC_UNSPECIFIED;
  par->chroma_location = in(si.chroma_location, AVCHROMA_LOC_NB) ? static_cast<AVChromaLocation>(si.chroma_location)
                                                                 : AVCHROMA_LOC_UNSPECIFIED;
  par->field_order = in(si.field_order, AV_FIELD_BB + 1) ? static_cast<AVFieldOrder>(si.field_order) : AV_FIELD_UNKNOWN;
  par->bit_rate = si.bit_rate > 0 ? si.bit_rate : 0;
  if (par->format < -1 || par->format >= AV_PIX_FMT_NB) par->format = -1;
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

TempFile::TempFile() {
  const char* dir = std::getenv("TMPDIR");
  path_ = std::string(dir != nullptr && dir[0] != 0 ? dir : "/tmp") + "/lancet-video-XXXXXX";
  fd_ = mkstemp(path_.data());
  if (fd_ < 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot create a temporary file in " + path_ + ": " + strerror(errno));
  linked_ = true;
}

TempFile::~TempFile() {
  Unlink();
  if (fd_ >= 0) close(fd_);
}

void TempFile::Unlink() {
  if (linked_) unlink(path_.c_str());
  linked_ = false;
}

}  // namespace lancet_video
