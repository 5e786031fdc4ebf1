// The test sources of the audio plugin tests: one sine sweep per codec and container the
// ffmpeg CLI can write here, and how exactly a window of each must match its reference.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "audio/audio_util.h"

namespace lancet::audio_test {

struct AudioCase {
  std::string name;
  std::string encoder;  // skipped when the ffmpeg CLI lacks it
  std::string args;
  std::string ext;
  int rate = 44100;
  int channels = 2;
  bool exact = false;        // lossless: bit-exact against the CLI
  bool s16 = false;          // compare in s16 (else f32)
  std::string video_inputs;  // non-empty: the audio stream of a video file
};

inline void PrintTo(const AudioCase& c, std::ostream* os) { *os << c.name; }

inline std::vector<AudioCase> AudioCases() {
  return {
      {"wav_s16", "pcm_s16le", "-c:a pcm_s16le", "wav", 44100, 2, true, true, ""},
      {"wav_s24", "pcm_s24le", "-c:a pcm_s24le", "wav", 48000, 2, true, false, ""},
      {"wav_f32_mono", "pcm_f32le", "-c:a pcm_f32le", "wav", 22050, 1, true, false, ""},
      {"flac", "flac", "-c:a flac", "flac", 44100, 2, true, true, ""},
      {"mp3", "libmp3lame", "-c:a libmp3lame -b:a 192k", "mp3", 44100, 2, false, false, ""},
      {"aac_m4a", "aac", "-c:a aac -b:a 192k", "m4a", 48000, 2, false, false, ""},
      {"opus_ogg", "libopus", "-c:a libopus -b:a 128k", "opus", 48000, 2, false, false, ""},
      {"vorbis_ogg", "libvorbis", "-c:a libvorbis -q:a 6", "ogg", 44100, 2, false, false, ""},
      {"aac_in_mp4_video", "aac", "-c:v libx264 -preset ultrafast -c:a aac -b:a 192k -shortest", "mp4", 48000, 2, false,
       false, "-f lavfi -i testsrc2=size=160x120:rate=25:duration=8"},
  };
}

/// The case's file ("" when an encoder is missing).
inline std::string MakeCase(const AudioCase& c, double seconds = 8) {
  if (!HasEncoder(c.encoder)) return "";
  if (c.video_inputs.empty()) return MakeAudio(seconds, c.rate, c.channels, c.args, c.ext);
  std::string expr = "0.5*sin(2*PI*(200+3800*t/" + std::to_string(seconds) + "/2)*t)|0.4*sin(2*PI*400*t)";
  const std::string inputs = c.video_inputs + " -f lavfi -i 'aevalsrc=" + expr + ":s=" + std::to_string(c.rate) +
                             ":d=" + std::to_string(seconds) + "'";
  return MakeMedia(inputs, c.args, c.ext);
}

}  // namespace lancet::audio_test
