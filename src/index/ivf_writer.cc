// The two files of an IVF segment.
#include "index/ivf_writer.h"

#include <nlohmann/json.hpp>

#include "index/index_file.h"
#include "index/vector_details.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

std::string StorageMetadata(const IvfWriteSpec& spec, uint32_t codebook_position) {
  const uint32_t dim = spec.model->dim;
  nlohmann::ordered_json meta;
  switch (spec.kind) {
    case StorageKind::kFlat:
      meta["dim"] = dim;
      break;
    case StorageKind::kPq:
      meta["codebook_position"] = codebook_position;
      meta["nbits"] = spec.pq->num_bits;
      meta["num_sub_vectors"] = spec.pq->num_sub_vectors;
      meta["dimension"] = dim;
      meta["codebook_tensor"] = nlohmann::ordered_json::array();
      meta["transposed"] = true;
      break;
    case StorageKind::kSq:
      meta["dim"] = dim;
      meta["num_bits"] = 8;
      meta["bounds"] = {{"start", spec.sq->start}, {"end", spec.sq->end}};
      break;
  }
  return nlohmann::json::array({meta.dump()}).dump();
}

Field CodeField(const IvfWriteSpec& spec) {
  const int32_t dim = static_cast<int32_t>(spec.model->dim);
  switch (spec.kind) {
    case StorageKind::kFlat:
      return MakeField(
          kFlatColumn,
          FixedSizeListOf(MakeField("item", MakeType(spec.model->half ? TypeId::kFloat16 : TypeId::kFloat32)), dim),
          false);
    case StorageKind::kPq:
      return MakeField(kPqCodeColumn, FixedSizeListOf(MakeField("item", MakeType(TypeId::kUInt8)),
                                                      static_cast<int32_t>(spec.pq->num_sub_vectors)));
    case StorageKind::kSq:
      return MakeField(kSqCodeColumn, FixedSizeListOf(MakeField("item", MakeType(TypeId::kUInt8)), dim));
  }
  return {};
}

}  // namespace

Result<IndexFileEntry> WriteAuxiliaryFile(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                          const IvfWriteSpec& spec, PartitionShuffler& parts) {
  IvfModel layout;
  for (uint32_t p = 0; p < parts.num_partitions(); ++p) {
    if (parts.count(p) > UINT32_MAX) return Status::InvalidArgument("an IVF partition holds over 2^32 rows");
    layout.AddPartition(static_cast<uint32_t>(parts.count(p)));
  }
  Schema schema;
  schema.fields = {MakeField(kRowIdColumn, MakeType(TypeId::kUInt64)), CodeField(spec)};
  // Global buffer 1 is the partition layout, 2 the PQ codebook: written first, so the
  // metadata naming them is known when the file starts.
  schema.metadata[kDistanceTypeKey] = DistanceTypeName(spec.distance);
  schema.metadata[kIvfMetadataKey] = "1";
  schema.metadata[kStorageMetadataKey] = StorageMetadata(spec, 2);
  ASSIGN_OR_RETURN(auto writer, CreateIndexFile(store, dir, kAuxiliaryFileName, schema));
  const std::string ivf = layout.Serialize();
  ASSIGN_OR_RETURN(uint32_t ivf_pos, writer->WriteGlobalBuffer(std::span<const uint8_t>(
                                         reinterpret_cast<const uint8_t*>(ivf.data()), ivf.size())));
  if (ivf_pos != 1) return Status::Internal("auxiliary.idx: the IVF buffer is not global buffer 1");
  if (spec.kind == StorageKind::kPq) {
    const std::string book = SerializeFloatTensor(spec.pq->values, {256, spec.model->dim}, spec.pq->half);
    ASSIGN_OR_RETURN(uint32_t pos, writer->WriteGlobalBuffer(std::span<const uint8_t>(
                                       reinterpret_cast<const uint8_t*>(book.data()), book.size())));
    if (pos != 2) return Status::Internal("auxiliary.idx: the PQ codebook is not global buffer 2");
  }
  const Field code_field = writer->schema().fields[1];
  const DataType item = code_field.type.children[0].type;
  const int32_t width = code_field.type.list_size;
  std::vector<uint64_t> rows;
  std::vector<uint8_t> payloads;
  for (uint32_t p = 0; p < parts.num_partitions(); ++p) {
    RETURN_IF_ERROR(parts.Read(p, &rows, &payloads));
    const size_t n = rows.size();
    if (n == 0) continue;
    if (spec.kind == StorageKind::kPq) {
      // The reference stores each partition's codes column-major ("transposed").
      std::vector<uint8_t> t(payloads.size());
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < static_cast<size_t>(width); ++j) t[j * n + i] = payloads[i * width + j];
      }
      payloads.swap(t);
    }
    ASSIGN_OR_RETURN(Array ids, ArrayFromVector(MakeType(TypeId::kUInt64), rows));
    ASSIGN_OR_RETURN(Array child, MakeFixedWidthArray(item, payloads, static_cast<int64_t>(n) * width));
    ASSIGN_OR_RETURN(Array codes, MakeFixedSizeListArray(code_field.type, static_cast<int64_t>(n), child));
    RETURN_IF_ERROR(writer->Write(RecordBatch{writer->schema(), static_cast<int64_t>(n), {ids, codes}}));
  }
  return FinishIndexFile(*writer, kAuxiliaryFileName);
}

namespace {

// index.idx with the flat sub-index: the IVF model and an empty marker column.
Result<IndexFileEntry> WriteFlatIndexFile(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                          const IvfWriteSpec& spec) {
  const uint32_t parts = spec.model->num_partitions()
                             ? spec.model->num_partitions()
                             : static_cast<uint32_t>(spec.model->centroids.size() / spec.model->dim);
  // The flat sub-index has no rows: every partition is empty in index.idx.
  IvfModel model = *spec.model;
  model.offsets.assign(parts, 0);
  model.lengths.assign(parts, 0);
  Schema schema;
  schema.fields = {MakeField("__flat_marker", MakeType(TypeId::kUInt64), false)};
  schema.metadata[kFlatSubIndexKey] = nlohmann::json(std::vector<std::string>(parts)).dump();
  nlohmann::ordered_json info;
  info["type"] = VectorIndexFileType(spec.type);
  info["distance_type"] = DistanceTypeName(spec.distance);
  schema.metadata[kVectorIndexMetadataKey] = info.dump();
  schema.metadata[kIvfMetadataKey] = "1";
  ASSIGN_OR_RETURN(auto writer, CreateIndexFile(store, dir, kIndexFileName, schema));
  const std::string ivf = model.Serialize();
  ASSIGN_OR_RETURN(uint32_t pos, writer->WriteGlobalBuffer(std::span<const uint8_t>(
                                     reinterpret_cast<const uint8_t*>(ivf.data()), ivf.size())));
  if (pos != 1) return Status::Internal("index.idx: the IVF buffer is not global buffer 1");
  return FinishIndexFile(*writer, kIndexFileName);
}

}  // namespace

Result<std::vector<IndexFileEntry>> WriteIvfSegment(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                    const IvfWriteSpec& spec, PartitionShuffler& parts) {
  std::vector<IndexFileEntry> files;
  ASSIGN_OR_RETURN(IndexFileEntry aux, WriteAuxiliaryFile(store, dir, spec, parts));
  files.push_back(aux);
  ASSIGN_OR_RETURN(IndexFileEntry main, WriteFlatIndexFile(store, dir, spec));
  files.push_back(main);
  return files;
}

}  // namespace lancet::index
