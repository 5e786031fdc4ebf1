// Writing an IVF_HNSW_SQ segment: the SQ storage, then a graph per partition over the SQ
// distances of its codes, laid out in index.idx as the reference lays it out.
#include <algorithm>
#include <thread>

#include <nlohmann/json.hpp>

#include "index/index_file.h"
#include "index/ivf_hnsw.h"
#include "index/vector_details.h"
#include "util/thread_pool.h"

namespace lancet::index {
namespace {

// The graph's lance:hnsw object and row count, known before it is built: levels are
// seeded draws (the same in every build) and the entry point is the first node on the
// top level. The file's schema metadata and IVF buffer are written before any graph.
struct PlannedGraph {
  std::string metadata;  // "" for an empty partition
  uint64_t rows = 0;
};

PlannedGraph PlanGraph(uint32_t n, const HnswParams& params) {
  PlannedGraph out;
  if (n == 0) return out;
  const std::vector<uint16_t> levels = HnswLevels(n, params.m, params.max_level, params.seed);
  const uint16_t top = *std::max_element(levels.begin(), levels.end());
  const uint32_t entry = static_cast<uint32_t>(std::find(levels.begin(), levels.end(), top) - levels.begin());
  std::vector<uint64_t> per_level(params.max_level, 0);
  for (uint16_t l : levels) {
    for (uint16_t i = 0; i <= l && i < params.max_level; ++i) ++per_level[i];
  }
  for (uint64_t count : per_level) out.rows += count;
  out.metadata = HnswMetadataObject(entry, params, per_level);
  return out;
}

}  // namespace

Result<std::vector<IndexFileEntry>> WriteIvfHnswSegment(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                        const IvfWriteSpec& spec, PartitionShuffler& parts,
                                                        const HnswParams& params) {
  if (spec.kind != StorageKind::kSq || spec.sq == nullptr) {
    return Status::Internal("IVF_HNSW segments are written over SQ storage only");
  }
  std::vector<IndexFileEntry> files;
  ASSIGN_OR_RETURN(IndexFileEntry aux, WriteAuxiliaryFile(store, dir, spec, parts));
  files.push_back(aux);

  const uint32_t num_parts = parts.num_partitions();
  const uint32_t dim = spec.model->dim;
  // Batch insertion (threads > 1) gives the same graph on any number of cores.
  const uint32_t cores = std::max(2u, std::thread::hardware_concurrency());
  HnswParams graph_params = params;
  graph_params.threads = cores;
  IvfModel model = *spec.model;
  model.offsets.clear();
  model.lengths.clear();
  std::vector<std::string> metadata;
  std::vector<PlannedGraph> plans;
  for (uint32_t p = 0; p < num_parts; ++p) {
    plans.push_back(PlanGraph(static_cast<uint32_t>(parts.count(p)), graph_params));
    if (plans.back().rows > UINT32_MAX) return Status::InvalidArgument("an HNSW partition holds over 2^32 graph rows");
    model.AddPartition(static_cast<uint32_t>(plans.back().rows));
    metadata.push_back(plans.back().metadata);
  }
  Schema schema;
  schema.fields = HnswFields();
  nlohmann::ordered_json info;
  info["type"] = VectorIndexFileType(spec.type);
  info["distance_type"] = DistanceTypeName(spec.distance);
  schema.metadata[kVectorIndexMetadataKey] = info.dump();
  schema.metadata[kIvfMetadataKey] = "1";
  schema.metadata[kHnswMetadataKey] = HnswMetadataArray(metadata);
  ASSIGN_OR_RETURN(auto writer, CreateIndexFile(store, dir, kIndexFileName, schema));
  const std::string ivf = model.Serialize();
  ASSIGN_OR_RETURN(uint32_t pos, writer->WriteGlobalBuffer(std::span<const uint8_t>(
                                     reinterpret_cast<const uint8_t*>(ivf.data()), ivf.size())));
  if (pos != 1) return Status::Internal("index.idx: the IVF buffer is not global buffer 1");

  // The SQ distance the graph is built with, as the storage computes it at search time.
  const DistanceType metric = spec.distance == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2;
  const SqBounds& sq = *spec.sq;
  struct Work {
    uint32_t partition = 0;
    std::vector<uint8_t> codes;
    Result<HnswGraph> graph = HnswGraph();
  };
  for (uint32_t first = 0; first < num_parts; first += cores) {
    // Partitions are read in order (the shuffler is single-threaded), built in parallel
    // and written in order.
    std::vector<Work> group;
    std::vector<uint64_t> rows;
    for (uint32_t p = first; p < std::min(num_parts, first + cores); ++p) {
      if (parts.count(p) == 0) continue;
      Work w;
      w.partition = p;
      RETURN_IF_ERROR(parts.Read(p, &rows, &w.codes));
      group.push_back(std::move(w));
    }
    ParallelFor(ThreadPool::Cpu(), group.size(), cores, [&](size_t i) {
      Work& w = group[i];
      const uint8_t* codes = w.codes.data();
      const auto distance = [&](uint32_t a, uint32_t b) {
        return SqCodeDistance(sq, codes + size_t{a} * dim, codes + size_t{b} * dim, dim, metric);
      };
      w.graph = HnswGraph::Build(static_cast<uint32_t>(w.codes.size() / dim), distance, graph_params);
    });
    for (Work& w : group) {
      if (!w.graph.ok()) return w.graph.status();
      const HnswGraph& g = *w.graph;
      if (g.MetadataJson() != plans[w.partition].metadata || g.num_rows() != plans[w.partition].rows) {
        return Status::Internal("HNSW partition " + std::to_string(w.partition) +
                                " does not have the planned levels: " + g.MetadataJson());
      }
      ASSIGN_OR_RETURN(HnswGraph::Columns c, g.ToColumns());
      RETURN_IF_ERROR(
          writer->Write(RecordBatch{writer->schema(), c.vector_id.length, {c.vector_id, c.neighbors, c.distance}}));
    }
  }
  ASSIGN_OR_RETURN(IndexFileEntry main, FinishIndexFile(*writer, kIndexFileName));
  files.push_back(main);
  return files;
}

}  // namespace lancet::index
