#include "image/image_util.h"

#include <tiffio.h>

#include <fstream>
#include <iterator>

#include "lancet/media/write_blob_info.h"
#include "lancet/table/blob_write.h"
#include "util/array_builder.h"

namespace lancet::media::testing {

std::string ImagePluginPath() {
#ifdef LANCET_IMAGE_PLUGIN
  return LANCET_IMAGE_PLUGIN;
#else
  return {};
#endif
}

std::shared_ptr<MediaPlugin> LoadImagePlugin() {
  auto loaded = MediaPlugin::Load({ImagePluginPath(), {}});
  return loaded.ok() ? *loaded : nullptr;
}

uint8_t PatternAt(const PageSpec& spec, uint32_t x, uint32_t y, uint32_t s) {
  // Smooth areas (so the codecs compress) with edges and per-sample differences (so a
  // misplaced tile, row or channel shows).
  const uint32_t v = (x * (s + 1) + y * 3 + spec.seed * 37 + ((x / 13 + y / 7) % 3) * 50) & 0xff;
  return static_cast<uint8_t>(v);
}

Status WriteTiff(const std::string& path, const std::vector<PageSpec>& pages, bool big) {
  // The legacy Deflate code (32946) is written on purpose; libtiff warns about it on stderr.
  TIFFSetWarningHandler(nullptr);
  TIFF* tif = TIFFOpen(path.c_str(), big ? "w8" : "w");
  if (tif == nullptr) return Status::IOError("libtiff cannot create " + path);
  for (const PageSpec& p : pages) {
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, p.width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, p.height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, p.samples);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    const uint16_t photometric =
        p.photometric != 0 ? p.photometric : (p.samples == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, photometric);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, p.compression);
    if (p.compression == COMPRESSION_ADOBE_DEFLATE || p.compression == COMPRESSION_DEFLATE) {
      TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 1);
    }
    if (p.predictor != 1) TIFFSetField(tif, TIFFTAG_PREDICTOR, p.predictor);
    if (p.compression == COMPRESSION_JPEG) TIFFSetField(tif, TIFFTAG_JPEGQUALITY, 90);
    if (pages.size() > 1) TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
    const auto value = [&](uint32_t x, uint32_t y, uint32_t s) {
      const uint8_t v = PatternAt(p, x, y, s);
      return photometric == PHOTOMETRIC_MINISWHITE ? static_cast<uint8_t>(255 - v) : v;
    };
    if (p.tile > 0) {
      TIFFSetField(tif, TIFFTAG_TILEWIDTH, p.tile);
      TIFFSetField(tif, TIFFTAG_TILELENGTH, p.tile);
      std::vector<uint8_t> buf(uint64_t{p.tile} * p.tile * p.samples);
      for (uint32_t ty = 0; ty < p.height; ty += p.tile) {
        for (uint32_t tx = 0; tx < p.width; tx += p.tile) {
          for (uint32_t y = 0; y < p.tile; ++y) {
            for (uint32_t x = 0; x < p.tile; ++x) {
              for (uint32_t s = 0; s < p.samples; ++s) {
                const bool inside = tx + x < p.width && ty + y < p.height;
                buf[(uint64_t{y} * p.tile + x) * p.samples + s] = inside ? value(tx + x, ty + y, s) : 0;
              }
            }
          }
          if (TIFFWriteTile(tif, buf.data(), tx, ty, 0, 0) < 0) {
            TIFFClose(tif);
            return Status::IOError("libtiff cannot write a tile of " + path);
          }
        }
      }
    } else {
      TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, p.rows_per_strip);
      std::vector<uint8_t> row(uint64_t{p.width} * p.samples);
      for (uint32_t y = 0; y < p.height; ++y) {
        for (uint32_t x = 0; x < p.width; ++x) {
          for (uint32_t s = 0; s < p.samples; ++s) row[uint64_t{x} * p.samples + s] = value(x, y, s);
        }
        if (TIFFWriteScanline(tif, row.data(), y, 0) < 0) {
          TIFFClose(tif);
          return Status::IOError("libtiff cannot write a row of " + path);
        }
      }
    }
    if (TIFFWriteDirectory(tif) != 1) {
      TIFFClose(tif);
      return Status::IOError("libtiff cannot write a directory of " + path);
    }
  }
  TIFFClose(tif);
  return Status::OK();
}

Result<Decoded> DecodeWithLibtiff(const std::string& path, uint32_t page) {
  TIFF* tif = TIFFOpen(path.c_str(), "r");
  if (tif == nullptr) return Status::IOError("libtiff cannot open " + path);
  struct Closer {
    TIFF* t;
    ~Closer() { TIFFClose(t); }
  } closer{tif};
  if (TIFFSetDirectory(tif, static_cast<tdir_t>(page)) != 1)
    return Status::NotFound(path + ": no page " + std::to_string(page));
  Decoded d;
  uint16_t samples = 1, photometric = 0;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &d.width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &d.height);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
  d.channels = samples;
  d.pixels.assign(uint64_t{d.width} * d.height * samples, 0);
  const uint64_t row_bytes = uint64_t{d.width} * samples;
  if (TIFFIsTiled(tif)) {
    uint32_t tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    std::vector<uint8_t> tile(TIFFTileSize(tif));
    for (uint32_t ty = 0; ty < d.height; ty += th) {
      for (uint32_t tx = 0; tx < d.width; tx += tw) {
        if (TIFFReadTile(tif, tile.data(), tx, ty, 0, 0) < 0) return Status::IOError(path + ": bad tile");
        for (uint32_t y = ty; y < std::min(ty + th, d.height); ++y) {
          const uint32_t n = std::min(tw, d.width - tx);
          std::copy_n(tile.data() + uint64_t{y - ty} * tw * samples, uint64_t{n} * samples,
                      d.pixels.data() + y * row_bytes + uint64_t{tx} * samples);
        }
      }
    }
  } else {
    for (uint32_t y = 0; y < d.height; ++y) {
      if (TIFFReadScanline(tif, d.pixels.data() + y * row_bytes, y, 0) < 0) return Status::IOError(path + ": bad row");
    }
  }
  if (photometric == PHOTOMETRIC_MINISWHITE) {
    for (uint8_t& v : d.pixels) v = static_cast<uint8_t>(255 - v);
  }
  return d;
}

std::vector<uint8_t> Crop(const Decoded& d, uint32_t x, uint32_t y, uint32_t w, uint32_t h) {
  std::vector<uint8_t> out;
  for (uint32_t r = y; r < y + h; ++r) {
    const uint8_t* row = d.pixels.data() + (uint64_t{r} * d.width + x) * d.channels;
    out.insert(out.end(), row, row + uint64_t{w} * d.channels);
  }
  return out;
}

std::vector<uint8_t> BoxDownscale(const Decoded& d, uint32_t ow, uint32_t oh) {
  std::vector<uint64_t> sum(uint64_t{ow} * oh * d.channels, 0), count(uint64_t{ow} * oh, 0);
  for (uint32_t y = 0; y < d.height; ++y) {
    for (uint32_t x = 0; x < d.width; ++x) {
      const uint64_t o = uint64_t{y} * oh / d.height * ow + uint64_t{x} * ow / d.width;
      ++count[o];
      for (uint32_t c = 0; c < d.channels; ++c)
        sum[o * d.channels + c] += d.pixels[(uint64_t{y} * d.width + x) * d.channels + c];
    }
  }
  std::vector<uint8_t> out(sum.size());
  for (uint64_t o = 0; o < count.size(); ++o) {
    for (uint32_t c = 0; c < d.channels; ++c) {
      out[o * d.channels + c] =
          static_cast<uint8_t>(count[o] == 0 ? 0 : (sum[o * d.channels + c] + count[o] / 2) / count[o]);
    }
  }
  return out;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteWholeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

Status WriteImageDataset(const std::string& root, const std::vector<std::string>& files, bool append,
                         uint64_t dedicated_bytes, const std::string& config) {
  Schema schema{{table::MakeBlobField("image", true, table::BlobThresholds{1024, dedicated_bytes, 1ULL << 30})}, {}};
  std::vector<std::optional<std::string>> values;
  std::vector<bool> valid;
  for (const std::string& f : files) {
    valid.push_back(!f.empty());
    if (f.empty()) {
      values.emplace_back();
      continue;
    }
    std::string bytes = ReadWholeFile(f);
    if (bytes.empty()) return Status::IOError(f + ": empty or unreadable");
    values.emplace_back(std::move(bytes));
  }
  const auto n = static_cast<int64_t>(files.size());
  ASSIGN_OR_RETURN(Array data, MakeBinaryArray(MakeType(TypeId::kLargeBinary), values));
  ASSIGN_OR_RETURN(Array uri, MakeNullArray(MakeType(TypeId::kUtf8), n));
  ASSIGN_OR_RETURN(Array col, MakeStructArray(schema.fields[0].type, n, {data, uri}, valid));
  table::WriteParams params;
  if (append) params.mode = table::WriteMode::kAppend;
  return WriteDatasetWithBlobInfo(
             root, schema, {RecordBatch{schema, n, {col}}}, params,
             {{"image", PluginSpec{ImagePluginPath(), std::vector<uint8_t>(config.begin(), config.end())}}})
      .status();
}

}  // namespace lancet::media::testing
