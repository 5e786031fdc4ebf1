// VectorIndexDetails: the compression oneof and HNSW config decide the index kind.
#include "index/vector_details.h"

#include <algorithm>
#include <cctype>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "lance_proto/index.pb.h"

namespace lancet::index {

Result<VectorDetails> ParseVectorDetails(const table::IndexMetadata& index) {
  std::string url = index.type_url;
  std::transform(url.begin(), url.end(), url.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string want = kVectorIndexTypeUrl;
  std::transform(want.begin(), want.end(), want.begin(), [](unsigned char c) { return std::tolower(c); });
  if (url != want) return Status::InvalidArgument("index '" + index.name + "' is not a vector index");
  lance::index::pb::VectorIndexDetails pb;
  if (!pb.ParseFromString(index.details)) {
    return Status::Corruption("index '" + index.name + "': VectorIndexDetails do not parse");
  }
  VectorDetails out;
  switch (pb.metric_type()) {
    case lance::index::pb::L2:
      out.distance = DistanceType::kL2;
      break;
    case lance::index::pb::Cosine:
      out.distance = DistanceType::kCosine;
      break;
    case lance::index::pb::Dot:
      out.distance = DistanceType::kDot;
      break;
    case lance::index::pb::Hamming:
      out.distance = DistanceType::kHamming;
      break;
    default:
      return Status::Corruption("index '" + index.name + "': unknown metric type");
  }
  const bool hnsw = pb.has_hnsw_index_config();
  if (hnsw) {
    out.hnsw_m = pb.hnsw_index_config().max_connections();
    out.hnsw_ef_construction = pb.hnsw_index_config().construction_ef();
    out.hnsw_max_level = pb.hnsw_index_config().max_level();
  }
  switch (pb.compression_case()) {
    case lance::index::pb::VectorIndexDetails::kFlat:
      if (!hnsw) out.type = VectorIndexType::kIvfFlat;
      break;
    case lance::index::pb::VectorIndexDetails::kPq:
      out.pq_num_bits = pb.pq().num_bits();
      out.pq_num_sub_vectors = pb.pq().num_sub_vectors();
      if (!hnsw) out.type = VectorIndexType::kIvfPq;
      break;
    case lance::index::pb::VectorIndexDetails::kSq:
      out.sq_num_bits = pb.sq().num_bits();
      out.type = hnsw ? VectorIndexType::kIvfHnswSq : VectorIndexType::kIvfSq;
      break;
    default:
      break;
  }
  for (const auto& [k, v] : pb.runtime_hints()) out.runtime_hints[k] = v;
  return out;
}

std::string SerializeVectorDetails(const VectorDetails& details) {
  lance::index::pb::VectorIndexDetails pb;
  pb.set_metric_type(static_cast<lance::index::pb::VectorMetricType>(static_cast<int>(details.distance)));
  switch (*details.type) {
    case VectorIndexType::kIvfFlat:
      pb.mutable_flat();
      break;
    case VectorIndexType::kIvfPq:
      pb.mutable_pq()->set_num_bits(details.pq_num_bits);
      pb.mutable_pq()->set_num_sub_vectors(details.pq_num_sub_vectors);
      break;
    case VectorIndexType::kIvfHnswSq:
      pb.mutable_hnsw_index_config()->set_max_connections(details.hnsw_m);
      pb.mutable_hnsw_index_config()->set_construction_ef(details.hnsw_ef_construction);
      pb.mutable_hnsw_index_config()->set_max_level(details.hnsw_max_level);
      [[fallthrough]];
    case VectorIndexType::kIvfSq:
      pb.mutable_sq()->set_num_bits(details.sq_num_bits);
      break;
  }
  for (const auto& [k, v] : details.runtime_hints) (*pb.mutable_runtime_hints())[k] = v;
  // Deterministic output: map entries in key order.
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  pb.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

bool IsUsableVector(const table::IndexMetadata& index) {
  auto details = ParseVectorDetails(index);
  return details.ok() && details->type && index.index_version.value_or(0) <= kVectorIndexVersion;
}

const char* VectorIndexFileType(VectorIndexType type) {
  switch (type) {
    case VectorIndexType::kIvfFlat:
      return "IVF_FLAT";
    case VectorIndexType::kIvfPq:
      return "IVF_PQ";
    case VectorIndexType::kIvfSq:
      return "IVF_SQ";
    case VectorIndexType::kIvfHnswSq:
      return "IVF_HNSW_SQ";
  }
  return "IVF_FLAT";
}

}  // namespace lancet::index
