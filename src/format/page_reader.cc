#include "format/page_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

#include "encoding/decoders.h"

namespace lancet::format::internal {

using encoding::DataBlock;

namespace {

constexpr uint64_t kMiniBlockAlignment = 8;   // chunk sections are padded to 8 bytes (§7.3)
constexpr uint64_t kMaxBuffersPerChunk = 64;  // far above anything the reference writes

uint64_t PadTo(uint64_t n, uint64_t align) { return (n + align - 1) / align * align; }

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

uint64_t LoadWidth(const uint8_t* p, uint64_t width) {
  switch (width) {
    case 1:
      return p[0];
    case 2:
      return Load<uint16_t>(p);
    case 4:
      return Load<uint32_t>(p);
    default:
      return Load<uint64_t>(p);
  }
}

// How a page numbers its definition levels, and the canonical form of each.
struct LevelMap {
  std::vector<LayerKind> kinds;            // innermost first
  std::vector<uint16_t> def_to_canonical;  // indexed by the page's def level
  uint16_t max_rep = 0;
  size_t first_list = 0;  // innermost-first index of the innermost list layer

  // Derived from def_to_canonical by SetDefLevels, once per page rather than per chunk:
  // whether each raw level is visible, and the last raw level of the visible prefix
  // 0..v when exactly those are visible (raw levels number item nulls before list
  // levels, so that is the usual case), else -1.
  std::vector<uint8_t> raw_visible;
  int visible_prefix_end = -1;

  bool has_def() const { return def_to_canonical.size() > 1; }
  void SetDefLevels(std::vector<uint16_t> canonical) {
    def_to_canonical = std::move(canonical);
    raw_visible.assign(def_to_canonical.size(), 0);
    for (size_t v = 0; v < raw_visible.size(); ++v) raw_visible[v] = Visible(def_to_canonical[v]) ? 1 : 0;
    size_t v = 0;
    while (v + 1 < raw_visible.size() && raw_visible[v + 1]) ++v;
    bool prefix = raw_visible[0] != 0;
    for (size_t u = v + 1; u < raw_visible.size(); ++u) prefix = prefix && !raw_visible[u];
    visible_prefix_end = prefix ? static_cast<int>(v) : -1;
  }
  bool Visible(uint16_t canonical) const {
    return canonical == 0 || ((canonical & 1) && static_cast<size_t>((canonical - 1) / 2) < first_list);
  }
};

Result<LevelMap> MakeLevelMap(const google::protobuf::RepeatedField<int>& layers, const std::string& context) {
  LevelMap m;
  std::vector<uint16_t> def;
  def.push_back(0);
  if (layers.empty()) return Status::Corruption(context + ": page has no rep/def layers");
  for (int i = 0; i < layers.size(); ++i) {
    const auto layer = static_cast<pb::RepDefLayer>(layers[i]);
    switch (layer) {
      case pb::REPDEF_ALL_VALID_ITEM:
        m.kinds.push_back(LayerKind::kItem);
        break;
      case pb::REPDEF_NULLABLE_ITEM:
        m.kinds.push_back(LayerKind::kItem);
        def.push_back(CanonicalNull(i));
        break;
      case pb::REPDEF_ALL_VALID_LIST:
        m.kinds.push_back(LayerKind::kList);
        break;
      case pb::REPDEF_NULLABLE_LIST:
        m.kinds.push_back(LayerKind::kList);
        def.push_back(CanonicalNull(i));
        break;
      case pb::REPDEF_EMPTYABLE_LIST:
        m.kinds.push_back(LayerKind::kList);
        def.push_back(CanonicalEmpty(i));
        break;
      case pb::REPDEF_NULL_AND_EMPTY_LIST:
        // Null takes the lower level, empty the upper one.
        m.kinds.push_back(LayerKind::kList);
        def.push_back(CanonicalNull(i));
        def.push_back(CanonicalEmpty(i));
        break;
      default:
        return Status::NotSupported(context + ": unknown rep/def layer " + std::to_string(layers[i]));
    }
  }
  if (m.kinds.size() > 1000) return Status::Corruption(context + ": more than 1000 rep/def layers");
  m.first_list = m.kinds.size();
  for (size_t i = 0; i < m.kinds.size(); ++i) {
    if (m.kinds[i] == LayerKind::kList) {
      m.first_list = i;
      break;
    }
  }
  for (auto k : m.kinds) m.max_rep += k == LayerKind::kList ? 1 : 0;
  if (m.kinds.front() != LayerKind::kItem) return Status::Corruption(context + ": innermost layer is a list");
  m.SetDefLevels(std::move(def));
  return m;
}

Status Canonicalize(const LevelMap& m, std::vector<uint16_t>* def, const std::string& context) {
  const size_t limit = m.def_to_canonical.size();
  for (auto& d : *def) {
    if (d >= limit) {
      return Status::Corruption(context + ": definition level " + std::to_string(d) + " exceeds the page maximum " +
                                std::to_string(limit - 1));
    }
    d = m.def_to_canonical[d];
  }
  return Status::OK();
}

Status CheckRep(const LevelMap& m, const std::vector<uint16_t>& rep, const std::string& context) {
  for (uint16_t r : rep) {
    if (r > m.max_rep) {
      return Status::Corruption(context + ": repetition level " + std::to_string(r) + " exceeds " +
                                std::to_string(m.max_rep));
    }
  }
  return Status::OK();
}

/// The n levels in `bytes`, or just the `wanted` ones (ascending; empty = all).
Result<std::vector<uint16_t>> DecodeLevels(const pb::CompressiveEncoding& enc, BufferPtr bytes, uint64_t n,
                                           const std::string& context, std::span<const uint32_t> wanted = {}) {
  auto levels = encoding::DecodeLevelBlock(enc, std::move(bytes), n, wanted);
  if (!levels.ok()) return levels.status().WithContext(context + ": levels");
  return levels.MoveValue();
}

/// DecodeLevels of all n levels into `out`, reusing its capacity.
Status DecodeLevelsInto(const pb::CompressiveEncoding& enc, BufferPtr bytes, uint64_t n, const std::string& context,
                        std::vector<uint16_t>* out) {
  Status st = encoding::DecodeLevelBlockInto(enc, std::move(bytes), n, out);
  if (!st.ok()) return st.WithContext(context + ": levels");
  return st;
}

Result<std::vector<BufferPtr>> ReadRanges(const io::RandomAccessFile& file, const std::vector<io::ByteRange>& ranges,
                                          const std::string& context) {
  if (ranges.empty()) return std::vector<BufferPtr>{};
  auto bufs = file.ReadMany(ranges);
  if (!bufs.ok()) return bufs.status().WithContext(context);
  if (bufs->size() != ranges.size()) return Status::IOError(context + ": short ReadMany result");
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!(*bufs)[i] || (*bufs)[i]->size() != ranges[i].length) {
      return Status::IOError(context + ": short read at offset " + std::to_string(ranges[i].offset));
    }
  }
  return bufs.MoveValue();
}

// One pass over a list chunk's levels: checks them against the layers, counts its row
// starts and visible values, and for its first `rows_needed` rows records where each
// starts among the levels and how many visible values precede it, canonicalising
// `def` in place up to there (see Canonicalize; the levels past it no slice reads).
// A take needs a row or two of a chunk, so past them only the counting part runs,
// which vectorises. The recording loop is branch-free: where a row starts is data, and
// a branch on it mispredicts at every short list.
// Rows before `rows_from` are not recorded either (their entries are left 0, and their
// definition levels raw): whole blocks of levels whose rows all come before it are
// checked and counted the vectorised way too, so a take of the rows at the end of a
// chunk does not walk the chunk a level at a time.
Status ScanListLevels(const LevelMap& m, const std::vector<uint16_t>& rep, std::vector<uint16_t>* def,
                      uint64_t rows_from, uint64_t rows_needed, std::vector<uint32_t>* starts,
                      std::vector<uint32_t>* vis_before, uint64_t* total_starts, uint64_t* total_vis,
                      const std::string& context) {
  constexpr size_t kBlock = 64;
  const size_t n = rep.size();
  const size_t want = static_cast<size_t>(std::min<uint64_t>(rows_needed, n));
  starts->resize(want);
  vis_before->resize(want);
  uint32_t* st = starts->data();
  uint32_t* vb = vis_before->data();
  const uint16_t max_rep = m.max_rep;
  const uint16_t* r = rep.data();
  size_t k = 0, i = 0;
  uint64_t vis = 0, tail_starts = 0;
  uint16_t top_rep = 0;
  if (def->empty()) {
    while (i + kBlock <= n) {
      uint64_t block_starts = 0;
      uint16_t block_rep = 0;
      for (size_t j = i; j < i + kBlock; ++j) {
        block_rep = std::max(block_rep, r[j]);
        block_starts += r[j] == max_rep;
      }
      if (k + block_starts > rows_from) break;
      top_rep = std::max(top_rep, block_rep);
      k += block_starts;
      i += kBlock;
    }
    for (; i < n && k < want; ++i) {
      st[k] = static_cast<uint32_t>(i);
      vb[k] = static_cast<uint32_t>(i);
      top_rep = std::max(top_rep, r[i]);
      k += r[i] == max_rep;
    }
    for (size_t j = i; j < n; ++j) {
      top_rep = std::max(top_rep, r[j]);
      tail_starts += r[j] == max_rep;
    }
    vis = n;
  } else {
    // Small tables answer "canonical form" and "visible?" for a raw level without
    // arithmetic; an out-of-range level reads entry 0 and fails the check below.
    const size_t limit = m.def_to_canonical.size();
    const uint8_t* visible = m.raw_visible.data();
    const uint16_t* canonical = m.def_to_canonical.data();
    uint16_t* d = def->data();
    uint16_t top_def = 0;
    while (m.visible_prefix_end >= 0 && i + kBlock <= n) {
      const uint16_t last = static_cast<uint16_t>(m.visible_prefix_end);
      uint64_t block_starts = 0, block_vis = 0;
      uint16_t block_rep = 0, block_def = 0;
      for (size_t j = i; j < i + kBlock; ++j) {
        block_rep = std::max(block_rep, r[j]);
        block_def = std::max(block_def, d[j]);
        block_starts += r[j] == max_rep;
        block_vis += d[j] <= last;
      }
      if (k + block_starts > rows_from) break;
      top_rep = std::max(top_rep, block_rep);
      top_def = std::max(top_def, block_def);
      k += block_starts;
      vis += block_vis;
      i += kBlock;
    }
    for (; i < n && k < want; ++i) {
      const uint16_t raw = d[i];
      top_def = std::max(top_def, raw);
      const uint16_t safe = raw < limit ? raw : 0;
      st[k] = static_cast<uint32_t>(i);
      vb[k] = static_cast<uint32_t>(vis);
      top_rep = std::max(top_rep, r[i]);
      k += r[i] == max_rep;
      vis += visible[safe];
      d[i] = canonical[safe];
    }
    // The visible raw levels are usually 0..v, which a comparison counts; otherwise
    // the table does.
    uint64_t tail_vis = 0;
    if (m.visible_prefix_end >= 0) {
      const uint16_t last = static_cast<uint16_t>(m.visible_prefix_end);
      for (size_t j = i; j < n; ++j) {
        top_rep = std::max(top_rep, r[j]);
        top_def = std::max(top_def, d[j]);
        tail_starts += r[j] == max_rep;
        tail_vis += d[j] <= last;
      }
    } else {
      for (size_t j = i; j < n; ++j) {
        top_rep = std::max(top_rep, r[j]);
        top_def = std::max(top_def, d[j]);
        tail_starts += r[j] == max_rep;
        tail_vis += visible[d[j] < limit ? d[j] : 0];
      }
    }
    vis += tail_vis;
    if (top_def >= limit) {
      return Status::Corruption(context + ": definition level " + std::to_string(top_def) +
                                " exceeds the page maximum " + std::to_string(limit - 1));
    }
  }
  if (top_rep > max_rep) {
    return Status::Corruption(context + ": repetition level " + std::to_string(top_rep) + " exceeds " +
                              std::to_string(max_rep));
  }
  starts->resize(k);
  vis_before->resize(k);
  *total_starts = k + tail_starts;
  *total_vis = vis;
  return Status::OK();
}

std::string LayersString(const google::protobuf::RepeatedField<int>& layers) {
  std::string s = "[";
  for (int i = 0; i < layers.size(); ++i) {
    if (i) s += ", ";
    std::string name = pb::RepDefLayer_Name(static_cast<pb::RepDefLayer>(layers[i]));
    if (name.starts_with("REPDEF_")) name = name.substr(7);
    s += name.empty() ? std::to_string(layers[i]) : name;
  }
  return s + "]";
}

// ---------------------------------------------------------------------------------------
// Mini-block (§7.3)

struct ChunkInfo {
  uint64_t offset = 0;  // within the chunks buffer
  uint64_t bytes = 0;
  uint64_t num_values = 0;
  uint64_t first_row = 0;  // first row that starts in this chunk (after any preamble)
  uint64_t starts = 0;     // rows starting in this chunk
  bool preamble = false;   // begins with the tail of a row from an earlier chunk
  bool trailer = false;    // its last row continues into the next chunk
};

struct MiniBlockMeta {
  std::vector<ChunkInfo> chunks;
  std::vector<uint64_t> row_end;  // first_row + starts, for the binary search
  std::shared_ptr<const DataBlock> dictionary;
};

struct DecodedChunk : DecodedUnit {
  std::vector<uint32_t> row_starts;  // level index of each row start (rep pages)
  std::vector<uint32_t> row_vis;     // values before each row start
  // List pages may keep only the levels and values of the rows a take slices (see
  // ChunkWindow): rep/def then start at chunk level level_base, values at value_base.
  // row_starts and row_vis stay in chunk terms.
  uint64_t level_base = 0, value_base = 0;
  // Pages without repetition may decode only some rows of a chunk (a take): their
  // chunk-local indexes, ascending; levels and values then hold just those rows.
  std::vector<uint32_t> picked;
};

// One step of a range walk: the preamble of a chunk and/or its local rows [j0, j1).
struct ChunkStep {
  size_t chunk = 0;
  size_t slot = 0;  // the chunk's place among those a read decodes
  bool preamble = false;
  uint64_t j0 = 0, j1 = 0;
};

// What the steps of one read slice from a chunk: its preamble or not, and the hull
// [first, end) of its local rows (first > end-1 when none).
struct ChunkWindow {
  bool preamble = false;
  uint64_t first = UINT64_MAX, end = 0;
};

class MiniBlockReader final : public PageReader {
 public:
  MiniBlockReader(PageSource src, pb::MiniBlockLayout layout, LevelMap levels)
      : src_(std::move(src)), layout_(std::move(layout)), levels_(std::move(levels)) {}

  Status Init() {
    has_rep_ = layout_.has_rep_compression();
    has_def_ = layout_.has_def_compression();
    if (!layout_.has_value_compression()) return Corrupt("mini-block page without a value encoding");
    if (has_rep_ != (levels_.max_rep > 0)) {
      return Corrupt("repetition levels present iff the layers contain lists");
    }
    if (layout_.num_buffers() > kMaxBuffersPerChunk) {
      return Corrupt("claims " + std::to_string(layout_.num_buffers()) + " buffers per chunk");
    }
    size_t need = 2;
    if (layout_.has_dictionary()) dict_buffer_ = static_cast<int>(need++);
    if (layout_.repetition_index_depth() > 0) rep_index_buffer_ = static_cast<int>(need++);
    if (src_.buffers.size() < need) {
      return Corrupt("has " + std::to_string(src_.buffers.size()) + " buffers, the layout needs " +
                     std::to_string(need));
    }
    return Status::OK();
  }

  const std::vector<LayerKind>& layer_kinds() const override { return levels_.kinds; }

  std::string Describe() const override {
    std::string s = "mini-block layers=" + LayersString(layout_.layers()) +
                    " values=" + encoding::DescribeEncoding(layout_.value_compression());
    if (has_rep_) s += " rep=" + encoding::DescribeEncoding(layout_.rep_compression());
    if (has_def_) s += " def=" + encoding::DescribeEncoding(layout_.def_compression());
    if (layout_.has_dictionary()) {
      s += " dictionary(" + std::to_string(layout_.num_dictionary_items()) +
           ")=" + encoding::DescribeEncoding(layout_.dictionary());
    }
    s += " items=" + std::to_string(layout_.num_items());
    if (layout_.has_large_chunk()) s += " large-chunks";
    return s;
  }

  Status Read(std::span<const RowRange> ranges, std::vector<std::vector<Slice>>* out) const override {
    ASSIGN_OR_RETURN(auto meta, LoadMeta());
    // The steps of range i are steps[step_begin[i], step_begin[i + 1]); one flat vector
    // rather than one per range, since a take has a range per row.
    std::vector<ChunkStep> steps;
    std::vector<size_t> step_begin(ranges.size() + 1, 0);
    std::vector<size_t> needed;
    for (size_t i = 0; i < ranges.size(); ++i) {
      RETURN_IF_ERROR(Walk(*meta, ranges[i], &steps));
      step_begin[i + 1] = steps.size();
    }
    for (const auto& step : steps) needed.push_back(step.chunk);
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    for (auto& step : steps) step.slot = std::lower_bound(needed.begin(), needed.end(), step.chunk) - needed.begin();
    std::vector<io::ByteRange> reads;
    const io::ByteRange& chunks_buf = src_.buffers[1];
    for (size_t c : needed) {
      reads.push_back({chunks_buf.offset + meta->chunks[c].offset, meta->chunks[c].bytes});
    }
    ASSIGN_OR_RETURN(auto bytes, ReadRanges(*src_.file, reads, src_.context));
    // A take's chunks lie scattered over a mapped file, and decoding one starts by
    // waiting for its first cache line: ask for all of them before decoding any.
    for (const BufferPtr& b : bytes) __builtin_prefetch(b->data());
    const WantedSets wanted = WantedValues(*meta, steps, needed.size());
    std::vector<ChunkWindow> windows(needed.size());
    for (const auto& step : steps) {
      ChunkWindow& w = windows[step.slot];
      w.preamble = w.preamble || step.preamble;
      if (step.j1 > step.j0) {
        w.first = std::min(w.first, step.j0);
        w.end = std::max(w.end, step.j1);
      }
    }
    std::vector<std::shared_ptr<const DecodedChunk>> decoded(needed.size());
    for (size_t i = 0; i < needed.size(); ++i) {
      ASSIGN_OR_RETURN(decoded[i], DecodeChunk(*meta, needed[i], bytes[i], wanted.of(i), windows[i]));
    }
    out->resize(ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
      (*out)[i].reserve(step_begin[i + 1] - step_begin[i]);
      for (size_t s = step_begin[i]; s < step_begin[i + 1]; ++s) {
        const ChunkStep& step = steps[s];
        const auto& d = decoded[step.slot];
        const ChunkInfo& ch = meta->chunks[step.chunk];
        if (!has_rep_) {
          uint64_t b = step.j0;
          if (!d->picked.empty()) b = std::lower_bound(d->picked.begin(), d->picked.end(), step.j0) - d->picked.begin();
          (*out)[i].push_back({d, b, b + (step.j1 - step.j0), b, b + (step.j1 - step.j0)});
          continue;
        }
        // In chunk terms, then relative to what the chunk kept.
        const uint64_t lbase = d->level_base, vbase = d->value_base;
        const uint64_t levels_end = lbase + d->num_levels, values_end = vbase + d->values.num_values;
        if (step.preamble) {
          uint64_t le = d->row_starts.empty() ? levels_end : d->row_starts[0];
          uint64_t ve = d->row_starts.empty() ? values_end : d->row_vis[0];
          (*out)[i].push_back({d, 0, le - lbase, 0, ve - vbase});
        }
        if (step.j1 > step.j0) {
          uint64_t lb = d->row_starts[step.j0], vb = d->row_vis[step.j0];
          uint64_t le = step.j1 < ch.starts ? d->row_starts[step.j1] : levels_end;
          uint64_t ve = step.j1 < ch.starts ? d->row_vis[step.j1] : values_end;
          (*out)[i].push_back({d, lb - lbase, le - lbase, vb - vbase, ve - vbase});
        }
      }
    }
    return Status::OK();
  }

 private:
  Status Corrupt(const std::string& what) const { return Status::Corruption(src_.context + ": " + what); }

  // Per needed chunk (slot), ascending value indexes: values[begin[k], begin[k + 1]).
  struct WantedSets {
    std::vector<uint32_t> values;
    std::vector<size_t> begin;
    std::span<const uint32_t> of(size_t k) const { return {values.data() + begin[k], values.data() + begin[k + 1]}; }
  };

  // For each needed chunk, the values the steps use when they are few (a take), so
  // the decoder can skip the others; none means decode everything. Without
  // repetition a chunk's values are its rows.
  WantedSets WantedValues(const MiniBlockMeta& meta, const std::vector<ChunkStep>& steps, size_t slots) const {
    WantedSets w;
    w.begin.assign(slots + 1, 0);
    if (has_rep_) return w;
    std::vector<uint64_t> used(slots, 0);
    for (const auto& step : steps) used[step.slot] += step.j1 - step.j0;
    std::vector<std::pair<size_t, uint32_t>> picks;
    for (const auto& step : steps) {
      if (used[step.slot] * 4 > meta.chunks[step.chunk].num_values) continue;
      for (uint64_t j = step.j0; j < step.j1; ++j) picks.emplace_back(step.slot, static_cast<uint32_t>(j));
    }
    std::sort(picks.begin(), picks.end());
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
    w.values.reserve(picks.size());
    for (const auto& [slot, j] : picks) {
      w.values.push_back(j);
      ++w.begin[slot + 1];
    }
    for (size_t k = 0; k < slots; ++k) w.begin[k + 1] += w.begin[k];
    return w;
  }

  Status Walk(const MiniBlockMeta& meta, RowRange range, std::vector<ChunkStep>* steps) const {
    if (range.begin >= range.end) return Status::OK();
    size_t c = std::upper_bound(meta.row_end.begin(), meta.row_end.end(), range.begin) - meta.row_end.begin();
    uint64_t row = range.begin;
    bool need_preamble = false;
    while (row < range.end || need_preamble) {
      if (c >= meta.chunks.size()) return Corrupt("rows run past the last chunk");
      const ChunkInfo& ch = meta.chunks[c];
      ChunkStep step;
      step.chunk = c;
      if (need_preamble) {
        if (!ch.preamble) return Corrupt("chunk " + std::to_string(c) + " lacks the continuation of a row");
        step.preamble = true;
        need_preamble = ch.starts == 0 && ch.trailer;
      }
      if (row < range.end && ch.starts > 0 && row < ch.first_row + ch.starts) {
        if (row < ch.first_row) return Corrupt("repetition index skips row " + std::to_string(row));
        step.j0 = row - ch.first_row;
        step.j1 = std::min(range.end, ch.first_row + ch.starts) - ch.first_row;
        row = ch.first_row + step.j1;
        if (step.j1 == ch.starts && ch.trailer) need_preamble = true;
      }
      if (step.preamble || step.j1 > step.j0) steps->push_back(step);
      ++c;
    }
    return Status::OK();
  }

  Result<std::shared_ptr<const MiniBlockMeta>> LoadMeta() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (meta_) return meta_;
    std::vector<io::ByteRange> reads = {src_.buffers[0]};
    if (dict_buffer_ >= 0) reads.push_back(src_.buffers[dict_buffer_]);
    if (rep_index_buffer_ >= 0) reads.push_back(src_.buffers[rep_index_buffer_]);
    ASSIGN_OR_RETURN(auto bufs, ReadRanges(*src_.file, reads, src_.context));
    auto meta = std::make_shared<MiniBlockMeta>();
    const uint64_t word = layout_.has_large_chunk() ? 4 : 2;
    const Buffer& words = *bufs[0];
    if (words.size() % word != 0) return Corrupt("chunk metadata size is not a multiple of " + std::to_string(word));
    const uint64_t num_chunks = words.size() / word;
    const uint64_t chunks_size = src_.buffers[1].length;
    uint64_t offset = 0, values = 0;
    for (uint64_t c = 0; c < num_chunks; ++c) {
      uint64_t w = LoadWidth(words.data() + c * word, word);
      ChunkInfo ch;
      ch.offset = offset;
      ch.bytes = ((w >> 4) + 1) * kMiniBlockAlignment;
      if (c + 1 < num_chunks) {
        ch.num_values = uint64_t{1} << (w & 0xF);
      } else {
        if (values > layout_.num_items()) return Corrupt("chunks hold more values than num_items");
        ch.num_values = layout_.num_items() - values;
      }
      values += ch.num_values;
      offset += ch.bytes;
      if (offset > chunks_size) {
        return Corrupt("chunk " + std::to_string(c) + " ends at byte " + std::to_string(offset) + " of a " +
                       std::to_string(chunks_size) + "-byte chunk buffer");
      }
      meta->chunks.push_back(ch);
    }
    if (values != layout_.num_items()) {
      return Corrupt("chunks hold " + std::to_string(values) + " values, num_items says " +
                     std::to_string(layout_.num_items()));
    }
    if (has_rep_) {
      if (rep_index_buffer_ >= 0) {
        const Buffer& idx = *bufs.back();
        const uint64_t stride = (uint64_t{layout_.repetition_index_depth()} + 1) * 8;
        if (idx.size() != num_chunks * stride) {
          return Corrupt("repetition index has " + std::to_string(idx.size()) + " bytes for " +
                         std::to_string(num_chunks) + " chunks");
        }
        bool preamble = false;
        uint64_t row = 0;
        for (uint64_t c = 0; c < num_chunks; ++c) {
          uint64_t ends = Load<uint64_t>(idx.data() + c * stride);
          uint64_t partial = Load<uint64_t>(idx.data() + c * stride + 8);
          ChunkInfo& ch = meta->chunks[c];
          ch.trailer = partial > 0;
          ch.preamble = preamble;
          if (ends + (ch.trailer ? 1 : 0) < (preamble ? 1 : 0) || ends > src_.num_rows) {
            return Corrupt("repetition index entry " + std::to_string(c) + " is inconsistent");
          }
          ch.starts = ends + (ch.trailer ? 1 : 0) - (preamble ? 1 : 0);
          ch.first_row = row;
          row += ch.starts;
          preamble = ch.trailer;
        }
      } else if (num_chunks == 1) {
        meta->chunks[0].starts = src_.num_rows;
      } else if (num_chunks > 1) {
        return Status::NotSupported(src_.context + ": multi-chunk list page without a repetition index");
      }
    } else {
      uint64_t row = 0;
      for (auto& ch : meta->chunks) {
        ch.first_row = row;
        ch.starts = ch.num_values;
        row += ch.num_values;
      }
    }
    uint64_t rows = 0;
    for (const auto& ch : meta->chunks) {
      rows += ch.starts;
      meta->row_end.push_back(ch.first_row + ch.starts);
    }
    if (rows != src_.num_rows) {
      return Corrupt("chunks hold " + std::to_string(rows) + " rows, the page has " + std::to_string(src_.num_rows));
    }
    if (dict_buffer_ >= 0) {
      auto dict = encoding::DecodeBlock(layout_.dictionary(), bufs[1], layout_.num_dictionary_items());
      if (!dict.ok()) return dict.status().WithContext(src_.context + ": dictionary");
      meta->dictionary = std::make_shared<DataBlock>(dict.MoveValue());
    }
    meta_ = meta;
    return meta_;
  }

  // `window`: list pages record where rows start only up to the last row it slices,
  // and keep just its levels and values when those are few (a take).
  Result<std::shared_ptr<const DecodedChunk>> DecodeChunk(const MiniBlockMeta& meta, size_t c, const BufferPtr& buf,
                                                          std::span<const uint32_t> wanted,
                                                          const ChunkWindow& window) const {
    auto d = DecodeChunkIn(meta, c, buf, wanted, window);
    if (!d.ok()) return d.status().WithContext(src_.context);
    return d;
  }

  // A take decodes a chunk or two per row, so the context its errors name is kept
  // short enough to need no allocation; DecodeChunk adds the page's.
  Result<std::shared_ptr<const DecodedChunk>> DecodeChunkIn(const MiniBlockMeta& meta, size_t c, const BufferPtr& buf,
                                                            std::span<const uint32_t> wanted,
                                                            const ChunkWindow& window) const {
    const ChunkInfo& ch = meta.chunks[c];
    const std::string ctx = "chunk " + std::to_string(c);
    const uint64_t size = buf->size();
    const uint8_t* p = buf->data();
    const uint64_t nbuf = layout_.num_buffers();
    const uint64_t size_width = layout_.has_large_chunk() ? 4 : 2;
    uint64_t header = 2 + (has_rep_ ? 2 : 0) + (has_def_ ? 2 : 0) + nbuf * size_width;
    if (header > size) return Status::Corruption(ctx + ": header longer than the chunk");
    uint64_t pos = 0;
    const uint64_t num_levels = Load<uint16_t>(p);
    pos += 2;
    uint64_t rep_bytes = 0, def_bytes = 0;
    if (has_rep_) rep_bytes = Load<uint16_t>(p + pos), pos += 2;
    if (has_def_) def_bytes = Load<uint16_t>(p + pos), pos += 2;
    uint64_t sizes[kMaxBuffersPerChunk];
    for (uint64_t i = 0; i < nbuf; ++i) {
      sizes[i] = LoadWidth(p + pos, size_width);
      pos += size_width;
    }
    pos = PadTo(pos, kMiniBlockAlignment);
    auto take = [&](uint64_t n, BufferPtr* out) -> Status {
      if (pos > size || n > size - pos) return Status::Corruption(ctx + ": section runs past the chunk end");
      *out = Buffer::Slice(buf, pos, n);
      pos = PadTo(pos + n, kMiniBlockAlignment);
      return Status::OK();
    };
    BufferPtr rep_buf, def_buf;
    if (has_rep_) RETURN_IF_ERROR(take(rep_bytes, &rep_buf));
    if (has_def_) RETURN_IF_ERROR(take(def_bytes, &def_buf));
    std::array<BufferPtr, kMaxBuffersPerChunk> value_buf_slots;
    const std::span<const BufferPtr> value_bufs(value_buf_slots.data(), nbuf);
    for (uint64_t i = 0; i < nbuf; ++i) RETURN_IF_ERROR(take(sizes[i], &value_buf_slots[i]));

    auto d = std::make_shared<DecodedChunk>();
    // `pick` as `wanted` of DecodeMiniBlockChunk.
    auto decode_values = [&](std::span<const uint32_t> pick) -> Status {
      auto values = encoding::DecodeMiniBlockChunk(layout_.value_compression(), value_bufs, ch.num_values, pick);
      if (!values.ok()) return values.status().WithContext(ctx);
      if (values->num_values != (pick.empty() ? ch.num_values : pick.size())) {
        return Status::Corruption(ctx + ": value count mismatch");
      }
      if (!meta.dictionary) {
        d->values = values.MoveValue();
        return Status::OK();
      }
      auto plain = encoding::ApplyDictionary(*values, *meta.dictionary);
      if (!plain.ok()) return plain.status().WithContext(ctx + ": dictionary");
      d->values = plain.MoveValue();
      return Status::OK();
    };
    if (!has_rep_) {
      RETURN_IF_ERROR(decode_values(wanted));
      const uint64_t out_values = wanted.empty() ? ch.num_values : wanted.size();
      if (has_def_) {
        if (num_levels != ch.num_values && num_levels != 0) {
          return Status::Corruption(ctx + ": " + std::to_string(num_levels) + " levels for " +
                                    std::to_string(ch.num_values) + " values");
        }
        // Without repetition levels are rows, so a take needs only its rows' levels.
        ASSIGN_OR_RETURN(d->def, DecodeLevels(layout_.def_compression(), def_buf, num_levels, ctx,
                                              num_levels > 0 ? wanted : std::span<const uint32_t>{}));
        RETURN_IF_ERROR(Canonicalize(levels_, &d->def, ctx));
      }
      // All-valid chunks need no def vector.
      if (std::all_of(d->def.begin(), d->def.end(), [](uint16_t v) { return v == 0; })) d->def.clear();
      d->num_levels = out_values;
      if (!d->def.empty() && d->def.size() != out_values) return Status::Corruption(ctx + ": level count");
      d->picked.assign(wanted.begin(), wanted.end());
      return std::shared_ptr<const DecodedChunk>(d);
    }
    // A take slices a row or two of a chunk that holds hundreds: its levels are decoded
    // into per-thread scratch and only the window's are kept (a chunk's levels are a
    // few KiB, allocated and freed per row otherwise).
    const bool rows = window.first < window.end;
    // The window's slices start at the chunk's first level: a preamble's, or nothing.
    const bool from_start = window.preamble || !rows;
    const bool few_rows = (rows ? window.end - window.first : 0) * 4 <= ch.starts;
    thread_local std::vector<uint16_t> rep_scratch, def_scratch;
    std::vector<uint16_t>& rep = few_rows ? rep_scratch : d->rep;
    std::vector<uint16_t>& def = few_rows ? def_scratch : d->def;
    RETURN_IF_ERROR(DecodeLevelsInto(layout_.rep_compression(), rep_buf, num_levels, ctx, &rep));
    def.clear();
    if (has_def_) RETURN_IF_ERROR(DecodeLevelsInto(layout_.def_compression(), def_buf, num_levels, ctx, &def));
    if (!def.empty() && def.size() != num_levels) return Status::Corruption(ctx + ": level count");
    // A slice ending at local row j reads row_starts[j], so the chunk needs j+1 of them.
    // Row 0's start ends a preamble slice, and the chunk must begin with it otherwise.
    const uint64_t rows_from = from_start ? 0 : window.first;
    uint64_t total_vis = 0, total_starts = 0;
    RETURN_IF_ERROR(ScanListLevels(levels_, rep, &def, rows_from, window.end + 1, &d->row_starts, &d->row_vis,
                                   &total_starts, &total_vis, ctx));
    if (total_vis != ch.num_values) {
      return Status::Corruption(ctx + ": " + std::to_string(total_vis) + " visible levels for " +
                                std::to_string(ch.num_values) + " values");
    }
    if (total_starts != ch.starts) {
      return Status::Corruption(ctx + ": " + std::to_string(total_starts) + " row starts, the repetition index says " +
                                std::to_string(ch.starts));
    }
    if (!ch.preamble && ch.starts > 0 && rep[0] != levels_.max_rep) {
      return Status::Corruption(ctx + ": chunk does not begin with a row");
    }
    // The levels and values the window's slices cover: from the first row it slices (or
    // the chunk's start, for a preamble) to the start of the row after its last.
    auto level_at = [&](uint64_t j) -> uint64_t { return j < ch.starts ? d->row_starts[j] : num_levels; };
    auto value_at = [&](uint64_t j) -> uint64_t { return j < ch.starts ? d->row_vis[j] : ch.num_values; };
    const uint64_t lmin = from_start ? 0 : level_at(window.first);
    const uint64_t vmin = from_start ? 0 : value_at(window.first);
    const uint64_t lend = level_at(rows ? window.end : 0), vend = value_at(rows ? window.end : 0);
    if (few_rows) {
      d->rep.assign(rep.begin() + lmin, rep.begin() + lend);
      if (!def.empty()) d->def.assign(def.begin() + lmin, def.begin() + lend);
      d->level_base = lmin;
      d->num_levels = lend - lmin;
    } else {
      d->num_levels = num_levels;
    }
    if ((vend - vmin) * 4 > ch.num_values) {
      RETURN_IF_ERROR(decode_values({}));
    } else {
      // The rest of the chunk's values are neither decoded nor kept. An empty window
      // still decodes one value (an empty pick means all of them).
      std::vector<uint32_t> pick;
      for (uint64_t v = vmin; v < vend; ++v) pick.push_back(static_cast<uint32_t>(v));
      if (pick.empty() && ch.num_values > 0) pick.push_back(static_cast<uint32_t>(std::min(vmin, ch.num_values - 1)));
      RETURN_IF_ERROR(decode_values(pick));
      d->value_base = pick.empty() ? 0 : pick[0];
    }
    if (std::all_of(d->def.begin(), d->def.end(), [](uint16_t v) { return v == 0; })) d->def.clear();
    return std::shared_ptr<const DecodedChunk>(d);
  }

  PageSource src_;
  pb::MiniBlockLayout layout_;
  LevelMap levels_;
  bool has_rep_ = false, has_def_ = false;
  int dict_buffer_ = -1, rep_index_buffer_ = -1;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const MiniBlockMeta> meta_;
};

// ---------------------------------------------------------------------------------------
// Full-zip (§7.4)

class FullZipReader final : public PageReader {
 public:
  FullZipReader(PageSource src, pb::FullZipLayout layout, LevelMap levels)
      : src_(std::move(src)), layout_(std::move(layout)), levels_(std::move(levels)) {}

  Status Init() {
    const uint32_t bits = layout_.bits_rep() + layout_.bits_def();
    if (layout_.bits_rep() > 16 || layout_.bits_def() > 16) return Corrupt("level widths above 16 bits");
    ctrl_bytes_ = bits == 0 ? 0 : bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
    if ((layout_.bits_rep() > 0) != (levels_.max_rep > 0)) {
      return Corrupt("repetition bits present iff the layers contain lists");
    }
    if (layout_.bits_def() == 0 && levels_.has_def()) {
      // The page declares nullable layers but stores no def bits: every level is valid.
      levels_.SetDefLevels({0});
    }
    if (levels_.has_def() && (uint64_t{1} << layout_.bits_def()) < levels_.def_to_canonical.size()) {
      return Corrupt("bits_def too small for the layers");
    }
    if (!layout_.has_value_compression()) return Corrupt("full-zip page without a value encoding");
    if (layout_.details_case() == pb::FullZipLayout::kBitsPerValue) {
      if (layout_.bits_per_value() == 0 || layout_.bits_per_value() % 8 != 0) {
        return Status::NotSupported(src_.context + ": full-zip values of " + std::to_string(layout_.bits_per_value()) +
                                    " bits");
      }
      value_bytes_ = layout_.bits_per_value() / 8;
    } else if (layout_.details_case() == pb::FullZipLayout::kBitsPerOffset) {
      if (layout_.bits_per_offset() != 32 && layout_.bits_per_offset() != 64) {
        return Corrupt("bits_per_offset " + std::to_string(layout_.bits_per_offset()));
      }
      variable_ = true;
      len_bytes_ = layout_.bits_per_offset() / 8;
    } else {
      return Corrupt("full-zip page names neither bits_per_value nor bits_per_offset");
    }
    if (src_.buffers.empty()) return Corrupt("full-zip page without a data buffer");
    has_index_ = src_.buffers.size() >= 2 && src_.buffers[1].length > 0;
    if ((variable_ || levels_.max_rep > 0) && !has_index_) return Corrupt("full-zip page needs a repetition index");
    if (has_index_) {
      const uint64_t entries = src_.num_rows + 1;
      const uint64_t size = src_.buffers[1].length;
      if (size % entries != 0) return Corrupt("repetition index size is not a multiple of rows+1");
      index_width_ = size / entries;
      if (index_width_ != 1 && index_width_ != 2 && index_width_ != 4 && index_width_ != 8) {
        return Corrupt("repetition index entries of " + std::to_string(index_width_) + " bytes");
      }
    }
    return Status::OK();
  }

  const std::vector<LayerKind>& layer_kinds() const override { return levels_.kinds; }

  std::string Describe() const override {
    std::string s = "full-zip layers=" + LayersString(layout_.layers()) +
                    " values=" + encoding::DescribeEncoding(layout_.value_compression());
    if (variable_) {
      s += " bits_per_offset=" + std::to_string(layout_.bits_per_offset());
    } else {
      s += " bits_per_value=" + std::to_string(layout_.bits_per_value());
    }
    s += " bits_rep=" + std::to_string(layout_.bits_rep()) + " bits_def=" + std::to_string(layout_.bits_def());
    if (has_index_) s += " rep_index_width=" + std::to_string(index_width_);
    return s;
  }

  Status Read(std::span<const RowRange> ranges, std::vector<std::vector<Slice>>* out) const override {
    const io::ByteRange data = src_.buffers[0];
    std::vector<io::ByteRange> reads;
    if (!has_index_) {
      const uint64_t stride = ctrl_bytes_ + value_bytes_;
      for (const auto& r : ranges) {
        if (r.end > src_.num_rows || stride == 0 || r.end > data.length / stride) {
          return Corrupt("rows past the end of the data buffer");
        }
        reads.push_back({data.offset + r.begin * stride, (r.end - r.begin) * stride});
      }
    } else {
      // Round one: the index entries of each range's first and one-past-last row.
      std::vector<io::ByteRange> index_reads;
      const io::ByteRange& index = src_.buffers[1];
      for (const auto& r : ranges) {
        index_reads.push_back({index.offset + r.begin * index_width_, (r.end - r.begin + 1) * index_width_});
      }
      ASSIGN_OR_RETURN(auto entries, ReadRanges(*src_.file, index_reads, src_.context));
      for (size_t i = 0; i < ranges.size(); ++i) {
        const uint8_t* e = entries[i]->data();
        uint64_t begin = LoadWidth(e, index_width_);
        uint64_t end = LoadWidth(e + (ranges[i].end - ranges[i].begin) * index_width_, index_width_);
        if (begin > end || end > data.length) {
          return Corrupt("repetition index points at bytes [" + std::to_string(begin) + ", " + std::to_string(end) +
                         ") of a " + std::to_string(data.length) + "-byte data buffer");
        }
        reads.push_back({data.offset + begin, end - begin});
      }
    }
    ASSIGN_OR_RETURN(auto spans, ReadRanges(*src_.file, reads, src_.context));
    out->resize(ranges.size());
    if (!has_index_ && ctrl_bytes_ == 0 && ranges.size() > 1) return ReadPlainFixed(ranges, spans, out);
    for (size_t i = 0; i < ranges.size(); ++i) {
      ASSIGN_OR_RETURN(auto unit, Parse(spans[i], ranges[i].end - ranges[i].begin));
      uint64_t levels = unit->num_levels, values = unit->values.num_values;
      (*out)[i].push_back({std::move(unit), 0, levels, 0, values});
    }
    return Status::OK();
  }

 private:
  Status Corrupt(const std::string& what) const { return Status::Corruption(src_.context + ": " + what); }

  // Fixed-width values without levels are just bytes: a take's rows (one range each)
  // decode as one unit instead of a unit, a decoder call and their allocations per row.
  Status ReadPlainFixed(std::span<const RowRange> ranges, const std::vector<BufferPtr>& spans,
                        std::vector<std::vector<Slice>>* out) const {
    uint64_t bytes = 0, rows = 0;
    for (const auto& s : spans) bytes += s->size();
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> all, Buffer::AllocateUninitialized(bytes));
    uint64_t at = 0;
    for (const auto& s : spans) {
      if (s->size() > 0) std::memcpy(all->mutable_data() + at, s->data(), s->size());
      at += s->size();
    }
    for (const auto& r : ranges) rows += r.end - r.begin;
    ASSIGN_OR_RETURN(auto unit, Parse(all, rows));
    uint64_t row = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
      const uint64_t n = ranges[i].end - ranges[i].begin;
      (*out)[i].push_back({unit, row, row + n, row, row + n});
      row += n;
    }
    return Status::OK();
  }

  Result<std::shared_ptr<const DecodedUnit>> Parse(const BufferPtr& span, uint64_t rows) const {
    auto u = std::make_shared<DecodedUnit>();
    const uint8_t* p = span->data();
    const uint64_t size = span->size();
    const bool has_rep = layout_.bits_rep() > 0;
    const bool has_def = levels_.has_def() && layout_.bits_def() > 0;
    const uint32_t def_mask = (uint32_t{1} << layout_.bits_def()) - 1;
    std::vector<uint8_t> fixed;  // value bytes with the control words removed
    std::vector<std::span<const uint8_t>> var_values;
    uint64_t pos = 0, levels = 0, row_starts = 0, visible = 0;
    const bool copy_fixed = !variable_ && ctrl_bytes_ > 0;
    // The values are at most the span: one allocation, not a doubling per growth (wide
    // vectors made those copies most of a scan).
    if (copy_fixed) fixed.reserve(size);
    while (pos < size) {
      uint32_t rep = levels_.max_rep, def = 0;
      if (ctrl_bytes_ > 0) {
        if (size - pos < ctrl_bytes_) return Corrupt("truncated control word");
        uint32_t ctrl = static_cast<uint32_t>(LoadWidth(p + pos, ctrl_bytes_));
        pos += ctrl_bytes_;
        def = ctrl & def_mask;
        rep = ctrl >> layout_.bits_def();
      }
      uint16_t canonical = 0;
      if (has_def) {
        if (def >= levels_.def_to_canonical.size()) {
          return Corrupt("definition level " + std::to_string(def) + " exceeds the page maximum");
        }
        canonical = levels_.def_to_canonical[def];
        u->def.push_back(canonical);
      }
      if (has_rep) {
        if (rep > levels_.max_rep) return Corrupt("repetition level " + std::to_string(rep) + " too large");
        if (levels == 0 && rep != levels_.max_rep) return Corrupt("row does not begin with a row start");
        u->rep.push_back(static_cast<uint16_t>(rep));
      }
      if (rep == levels_.max_rep) ++row_starts;
      const bool vis = levels_.Visible(canonical);
      if (vis) {
        ++visible;
        if (variable_) {
          if (def == 0) {
            if (size - pos < len_bytes_) return Corrupt("truncated value length");
            uint64_t len = LoadWidth(p + pos, len_bytes_);
            pos += len_bytes_;
            if (len > size - pos) return Corrupt("value of " + std::to_string(len) + " bytes runs past its row");
            var_values.emplace_back(p + pos, static_cast<size_t>(len));
            pos += len;
          } else {
            var_values.emplace_back();
          }
        } else {
          if (size - pos < value_bytes_) return Corrupt("truncated fixed-width value");
          if (copy_fixed) fixed.insert(fixed.end(), p + pos, p + pos + value_bytes_);
          pos += value_bytes_;
        }
      }
      ++levels;
    }
    if (row_starts != rows) {
      return Corrupt(std::to_string(row_starts) + " rows where " + std::to_string(rows) + " were expected");
    }
    u->num_levels = levels;
    if (std::all_of(u->def.begin(), u->def.end(), [](uint16_t v) { return v == 0; })) u->def.clear();
    Result<DataBlock> values = Status::OK();
    if (variable_) {
      values = encoding::DecodeFullZipVariable(layout_.value_compression(), var_values, span);
    } else if (copy_fixed) {
      values = encoding::DecodeFullZipFixed(layout_.value_compression(), Buffer::FromVector(std::move(fixed)), visible);
    } else {
      values = encoding::DecodeFullZipFixed(layout_.value_compression(), span, visible);
    }
    if (!values.ok()) return values.status().WithContext(src_.context);
    if (values->num_values != visible) return Corrupt("value count mismatch");
    u->values = values.MoveValue();
    return std::shared_ptr<const DecodedUnit>(u);
  }

  PageSource src_;
  pb::FullZipLayout layout_;
  LevelMap levels_;
  uint32_t ctrl_bytes_ = 0;
  bool variable_ = false;
  uint64_t value_bytes_ = 0;
  uint64_t len_bytes_ = 0;
  bool has_index_ = false;
  uint64_t index_width_ = 0;
};

// ---------------------------------------------------------------------------------------
// Constant / all-null (§7.5)

struct ConstantLevels {
  std::shared_ptr<DecodedUnit> all;  // every level of the page (values filled per slice)
  std::vector<uint32_t> row_starts;  // levels are bounded far below 2^32 (kMaxAllocation / 2)
  std::vector<uint32_t> row_vis;
  uint64_t total_vis = 0;
};

class ConstantReader final : public PageReader {
 public:
  ConstantReader(PageSource src, pb::ConstantLayout layout, LevelMap levels)
      : src_(std::move(src)), layout_(std::move(layout)), levels_(std::move(levels)) {}

  Status Init() {
    if (layout_.has_inline_value()) {
      const auto& v = layout_.inline_value();
      if (v.empty() || v.size() > 32) return Corrupt("inline value of " + std::to_string(v.size()) + " bytes");
      inline_value_ = Buffer::Copy(std::string_view(v));
    }
    if (!inline_value_ && !levels_.has_def() && levels_.max_rep == 0) {
      // All valid but no inline value: the constant is too wide to inline and sits in
      // buffer 0 as a one-value array (observed for strings in lance 12 files).
      if (src_.buffers.empty() || src_.buffers[0].length == 0) {
        if (src_.num_rows > 0) return Corrupt("all-valid constant page without a value");
        return Status::OK();
      }
      scalar_buffer_ = true;
      return Status::OK();
    }
    if (!inline_value_ && src_.buffers.size() == 3) {
      // A value that repeats between nulls (lance 12, e.g. the only non-null string of
      // a column): [the value as a one-value array, rep, def].
      scalar_buffer_ = src_.buffers[0].length > 0;
      if (src_.buffers[1].length > 0) rep_buffer_ = 1;
      if (src_.buffers[2].length > 0) def_buffer_ = 2;
      if ((rep_buffer_ >= 0) != (levels_.max_rep > 0) && src_.num_rows > 0) {
        return Corrupt("repetition levels present iff the layers contain lists");
      }
      return Status::OK();
    }
    // 2.1 (AllNullLayout) and 2.2 both put rep in buffer 0 and def in buffer 1.
    if (src_.buffers.size() >= 1 && src_.buffers[0].length > 0) rep_buffer_ = 0;
    if (src_.buffers.size() >= 2 && src_.buffers[1].length > 0) def_buffer_ = 1;
    if (src_.buffers.size() == 1 && src_.buffers[0].length > 0 && levels_.max_rep == 0) {
      rep_buffer_ = -1;
      def_buffer_ = 0;
    }
    if ((rep_buffer_ >= 0) != (levels_.max_rep > 0) && src_.num_rows > 0) {
      return Corrupt("repetition levels present iff the layers contain lists");
    }
    return Status::OK();
  }

  const std::vector<LayerKind>& layer_kinds() const override { return levels_.kinds; }

  std::string Describe() const override {
    std::string s = "constant layers=" + LayersString(layout_.layers());
    s += inline_value_    ? " value=" + std::to_string(inline_value_->size()) + " bytes"
         : scalar_buffer_ ? std::string(" value in buffer 0")
                          : std::string(" all-null");
    if (rep_buffer_ >= 0) {
      s += " rep=" +
           (layout_.has_rep_compression() ? encoding::DescribeEncoding(layout_.rep_compression()) : std::string("u16"));
    }
    if (def_buffer_ >= 0) {
      s += " def=" +
           (layout_.has_def_compression() ? encoding::DescribeEncoding(layout_.def_compression()) : std::string("u16"));
    }
    return s;
  }

  Status Read(std::span<const RowRange> ranges, std::vector<std::vector<Slice>>* out) const override {
    out->resize(ranges.size());
    if (scalar_buffer_) RETURN_IF_ERROR(LoadScalar());
    if (rep_buffer_ < 0 && def_buffer_ < 0) {
      for (size_t i = 0; i < ranges.size(); ++i) {
        const uint64_t n = ranges[i].end - ranges[i].begin;
        auto u = std::make_shared<DecodedUnit>();
        u->num_levels = n;
        ASSIGN_OR_RETURN(u->values, Values(n));
        if (!inline_value_ && levels_.has_def()) u->def.assign(n, levels_.def_to_canonical[1]);
        (*out)[i].push_back({std::move(u), 0, n, 0, n});
      }
      return Status::OK();
    }
    ASSIGN_OR_RETURN(auto lv, LoadLevels());
    for (size_t i = 0; i < ranges.size(); ++i) {
      const auto& r = ranges[i];
      uint64_t lb, le, vb, ve;
      if (levels_.max_rep > 0) {
        lb = lv->row_starts[r.begin];
        vb = lv->row_vis[r.begin];
        le = r.end < lv->row_starts.size() ? lv->row_starts[r.end] : lv->all->num_levels;
        ve = r.end < lv->row_starts.size() ? lv->row_vis[r.end] : lv->total_vis;
      } else {
        lb = r.begin, le = r.end;
        vb = lv->row_vis.empty() ? r.begin : lv->row_vis[r.begin];
        ve = lv->row_vis.empty() ? r.end : (r.end < lv->row_vis.size() ? lv->row_vis[r.end] : lv->total_vis);
      }
      // Values are synthesised per slice, so each slice gets its own unit over the
      // shared levels.
      auto u = std::make_shared<DecodedUnit>();
      u->num_levels = le - lb;
      if (!lv->all->rep.empty()) u->rep.assign(lv->all->rep.begin() + lb, lv->all->rep.begin() + le);
      if (!lv->all->def.empty()) u->def.assign(lv->all->def.begin() + lb, lv->all->def.begin() + le);
      ASSIGN_OR_RETURN(u->values, Values(ve - vb));
      uint64_t nl = u->num_levels, nv = u->values.num_values;
      (*out)[i].push_back({std::move(u), 0, nl, 0, nv});
    }
    return Status::OK();
  }

 private:
  Status Corrupt(const std::string& what) const { return Status::Corruption(src_.context + ": " + what); }

  // Parses the one-value array of buffer 0: u32 buffer count, u32 size per buffer,
  // then the buffers (one = fixed-width bytes; two = offsets and bytes).
  Status LoadScalar() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (scalar_) return Status::OK();
    ASSIGN_OR_RETURN(auto bufs, ReadRanges(*src_.file, {src_.buffers[0]}, src_.context));
    const Buffer& b = *bufs[0];
    const uint64_t size = b.size();
    if (size < 4) return Corrupt("constant value buffer too short");
    const uint32_t count = Load<uint32_t>(b.data());
    if (count == 0 || count > 2 || size < 4 + 4ULL * count) {
      return Status::NotSupported(src_.context + ": constant value stored as " + std::to_string(count) + " buffers");
    }
    std::vector<uint64_t> sizes(count);
    uint64_t pos = 4 + 4ULL * count;
    for (uint32_t i = 0; i < count; ++i) sizes[i] = Load<uint32_t>(b.data() + 4 + 4 * i);
    std::vector<BufferPtr> parts;
    for (uint64_t s : sizes) {
      if (s > size - pos) return Corrupt("constant value buffers run past their page buffer");
      parts.push_back(Buffer::Slice(bufs[0], pos, s));
      pos += s;
    }
    auto block = std::make_shared<DataBlock>();
    if (count == 1) {
      if (parts[0]->empty() || parts[0]->size() > kMaxAllocation / 8) return Corrupt("empty constant value");
      *block = DataBlock::Fixed(static_cast<uint32_t>(parts[0]->size() * 8), 1, parts[0]);
    } else {
      const uint64_t width = parts[0]->size() / 2;
      if ((width != 4 && width != 8) || parts[0]->size() != 2 * width) return Corrupt("constant value offsets");
      uint64_t b0 = width == 4 ? Load<uint32_t>(parts[0]->data()) : Load<uint64_t>(parts[0]->data());
      uint64_t b1 = width == 4 ? Load<uint32_t>(parts[0]->data() + 4) : Load<uint64_t>(parts[0]->data() + 8);
      if (b0 > b1 || b1 > parts[1]->size()) return Corrupt("constant value offsets point past its bytes");
      std::vector<uint8_t> offsets(16);
      uint64_t zero = 0, len = b1 - b0;
      std::memcpy(offsets.data(), &zero, 8);
      std::memcpy(offsets.data() + 8, &len, 8);
      *block = DataBlock::Variable(64, 1, Buffer::FromVector(std::move(offsets)), Buffer::Slice(parts[1], b0, len));
    }
    scalar_ = block;
    return Status::OK();
  }

  Result<DataBlock> Values(uint64_t n) const {
    if (scalar_) {
      if (scalar_->kind == DataBlock::Kind::kFixed) {
        const uint64_t w = scalar_->bits_per_value / 8;
        if (n > kMaxAllocation / w) return Corrupt("constant page too large to materialise");
        std::vector<uint8_t> bytes(n * w);
        for (uint64_t i = 0; i < n; ++i) std::memcpy(bytes.data() + i * w, scalar_->data->data(), w);
        return DataBlock::Fixed(scalar_->bits_per_value, n, Buffer::FromVector(std::move(bytes)));
      }
      const uint64_t len = scalar_->data->size();
      if (len != 0 && n > kMaxAllocation / len) return Corrupt("constant page too large to materialise");
      std::vector<uint8_t> bytes(n * len);
      std::vector<uint8_t> offsets((n + 1) * 8);
      for (uint64_t i = 0; i < n; ++i) {
        if (len) std::memcpy(bytes.data() + i * len, scalar_->data->data(), len);
        uint64_t o = (i + 1) * len;
        std::memcpy(offsets.data() + (i + 1) * 8, &o, 8);
      }
      return DataBlock::Variable(64, n, Buffer::FromVector(std::move(offsets)), Buffer::FromVector(std::move(bytes)));
    }
    if (!inline_value_) {
      DataBlock b;
      b.num_values = n;
      return b;
    }
    const uint64_t w = inline_value_->size();
    if (n > kMaxAllocation / w) return Corrupt("constant page too large to materialise");
    std::vector<uint8_t> bytes(n * w);
    for (uint64_t i = 0; i < n; ++i) std::memcpy(bytes.data() + i * w, inline_value_->data(), w);
    return DataBlock::Fixed(static_cast<uint32_t>(w * 8), n, Buffer::FromVector(std::move(bytes)));
  }

  Result<std::vector<uint16_t>> LevelsOf(int buffer, const BufferPtr& bytes, bool has_enc,
                                         const pb::CompressiveEncoding& enc, uint64_t count) const {
    if (has_enc) {
      if (count == 0) return Corrupt("compressed levels without a count");
      if (count > kMaxAllocation / 2) return Corrupt("level count too large");
      return DecodeLevels(enc, bytes, count, src_.context);
    }
    if (bytes->size() % 2 != 0) return Corrupt("raw u16 levels of odd size");
    std::vector<uint16_t> out(bytes->size() / 2);
    std::memcpy(out.data(), bytes->data(), out.size() * 2);
    if (count != 0 && count != out.size()) return Corrupt("level count mismatch");
    return out;
  }

  Result<std::shared_ptr<const ConstantLevels>> LoadLevels() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (levels_cache_) return levels_cache_;
    std::vector<io::ByteRange> reads;
    if (rep_buffer_ >= 0) reads.push_back(src_.buffers[rep_buffer_]);
    if (def_buffer_ >= 0) reads.push_back(src_.buffers[def_buffer_]);
    ASSIGN_OR_RETURN(auto bufs, ReadRanges(*src_.file, reads, src_.context));
    auto lv = std::make_shared<ConstantLevels>();
    lv->all = std::make_shared<DecodedUnit>();
    size_t next = 0;
    if (rep_buffer_ >= 0) {
      ASSIGN_OR_RETURN(lv->all->rep, LevelsOf(rep_buffer_, bufs[next++], layout_.has_rep_compression(),
                                              layout_.rep_compression(), layout_.num_rep_values()));
      RETURN_IF_ERROR(CheckRep(levels_, lv->all->rep, src_.context));
    }
    if (def_buffer_ >= 0) {
      ASSIGN_OR_RETURN(lv->all->def, LevelsOf(def_buffer_, bufs[next++], layout_.has_def_compression(),
                                              layout_.def_compression(), layout_.num_def_values()));
      // List pages canonicalise while finding their rows, below.
      if (levels_.max_rep == 0) RETURN_IF_ERROR(Canonicalize(levels_, &lv->all->def, src_.context));
    }
    auto& all = *lv->all;
    if (!all.rep.empty() && !all.def.empty() && all.rep.size() != all.def.size()) {
      return Corrupt("rep and def level counts differ");
    }
    all.num_levels = std::max(all.rep.size(), all.def.size());
    if (levels_.max_rep > 0) {
      if (!all.def.empty() && all.def.size() != all.rep.size()) return Corrupt("rep and def level counts differ");
      uint64_t total_starts = 0;
      RETURN_IF_ERROR(ScanListLevels(levels_, all.rep, &all.def, 0, src_.num_rows, &lv->row_starts, &lv->row_vis,
                                     &total_starts, &lv->total_vis, src_.context));
      if (total_starts != src_.num_rows) return Corrupt("level rows differ from the page rows");
    } else {
      if (all.num_levels != src_.num_rows) return Corrupt("level count differs from the page rows");
      uint64_t vis = 0;
      for (uint64_t i = 0; i < all.num_levels; ++i) {
        lv->row_vis.push_back(static_cast<uint32_t>(vis));
        if (all.def.empty() || levels_.Visible(all.def[i])) ++vis;
      }
      lv->total_vis = vis;
    }
    levels_cache_ = lv;
    return levels_cache_;
  }

  PageSource src_;
  pb::ConstantLayout layout_;
  LevelMap levels_;
  BufferPtr inline_value_;
  int rep_buffer_ = -1, def_buffer_ = -1;
  bool scalar_buffer_ = false;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const ConstantLevels> levels_cache_;
  mutable std::shared_ptr<const DataBlock> scalar_;
};

}  // namespace

Result<std::unique_ptr<PageReader>> MakePageReader(PageSource src, const pb::PageLayout& layout) {
  switch (layout.layout_case()) {
    case pb::PageLayout::kMiniBlockLayout: {
      ASSIGN_OR_RETURN(LevelMap m, MakeLevelMap(layout.mini_block_layout().layers(), src.context));
      auto r = std::make_unique<MiniBlockReader>(std::move(src), layout.mini_block_layout(), std::move(m));
      RETURN_IF_ERROR(r->Init());
      return std::unique_ptr<PageReader>(std::move(r));
    }
    case pb::PageLayout::kFullZipLayout: {
      ASSIGN_OR_RETURN(LevelMap m, MakeLevelMap(layout.full_zip_layout().layers(), src.context));
      auto r = std::make_unique<FullZipReader>(std::move(src), layout.full_zip_layout(), std::move(m));
      RETURN_IF_ERROR(r->Init());
      return std::unique_ptr<PageReader>(std::move(r));
    }
    case pb::PageLayout::kConstantLayout: {
      ASSIGN_OR_RETURN(LevelMap m, MakeLevelMap(layout.constant_layout().layers(), src.context));
      auto r = std::make_unique<ConstantReader>(std::move(src), layout.constant_layout(), std::move(m));
      RETURN_IF_ERROR(r->Init());
      return std::unique_ptr<PageReader>(std::move(r));
    }
    case pb::PageLayout::kBlobLayout:
      return Status::NotSupported(src.context + ": the Blob V1 page layout");
    default:
      return Status::NotSupported(src.context + ": unknown page layout (oneof case " +
                                  std::to_string(static_cast<int>(layout.layout_case())) + ")");
  }
}

}  // namespace lancet::format::internal
