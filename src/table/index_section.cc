#include "table/index_section.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <roaring/roaring.hh>

#include "table/deletion.h"
#include "table/refs.h"

namespace lancet::table {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<IndexMetadata> IndexFromProto(const lance::table::IndexMetadata& pb, const std::string& path) {
  IndexMetadata out;
  if (pb.uuid().uuid().size() != 16) {
    return Status::Corruption(path + ": index '" + pb.name() + "' has a uuid of " +
                              std::to_string(pb.uuid().uuid().size()) + " bytes, 16 expected");
  }
  out.uuid = FormatIndexUuid(pb.uuid().uuid());
  out.name = pb.name();
  out.fields.assign(pb.fields().begin(), pb.fields().end());
  out.dataset_version = pb.dataset_version();
  if (!pb.fragment_bitmap().empty()) {
    const std::string& bytes = pb.fragment_bitmap();
    auto bitmap =
        ParsePortableRoaring(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                             path + ": fragment bitmap of index '" + pb.name() + "'");
    if (!bitmap.ok()) return bitmap.status();
    for (uint32_t id : *bitmap) out.fragment_ids.push_back(id);
  }
  out.type_url = pb.index_details().type_url();
  out.details = pb.index_details().value();
  if (pb.has_index_version()) out.index_version = pb.index_version();
  if (pb.has_created_at()) out.created_at_ms = pb.created_at();
  if (pb.has_base_id()) out.base_id = pb.base_id();
  for (const auto& f : pb.files()) out.files.push_back({f.path(), f.size_bytes()});
  return out;
}

Result<lance::table::IndexMetadata> IndexToProto(const IndexMetadata& index) {
  lance::table::IndexMetadata pb;
  std::string raw;
  int hi = -1;
  for (char c : index.uuid) {
    if (c == '-') continue;
    const int d = HexDigit(c);
    if (d < 0) return Status::InvalidArgument("index uuid '" + index.uuid + "' is not hexadecimal");
    if (hi < 0) {
      hi = d;
    } else {
      raw.push_back(static_cast<char>(hi << 4 | d));
      hi = -1;
    }
  }
  if (raw.size() != 16 || hi >= 0) return Status::InvalidArgument("index uuid '" + index.uuid + "' is not 16 bytes");
  pb.mutable_uuid()->set_uuid(raw);
  for (int32_t f : index.fields) pb.add_fields(f);
  pb.set_name(index.name);
  pb.set_dataset_version(index.dataset_version);
  Roaring frags;
  for (uint64_t id : index.fragment_ids) {
    if (id > UINT32_MAX) return Status::InvalidArgument("fragment id " + std::to_string(id) + " exceeds 32 bits");
    frags.add(static_cast<uint32_t>(id));
  }
  std::string bitmap(frags.getSizeInBytes(/*portable=*/true), '\0');
  frags.write(bitmap.data(), /*portable=*/true);
  pb.set_fragment_bitmap(bitmap);
  pb.mutable_index_details()->set_type_url(index.type_url);
  if (!index.details.empty()) pb.mutable_index_details()->set_value(index.details);
  if (index.index_version) pb.set_index_version(*index.index_version);
  if (index.created_at_ms) pb.set_created_at(*index.created_at_ms);
  if (index.base_id) pb.set_base_id(*index.base_id);
  for (const IndexFileInfo& f : index.files) {
    auto* file = pb.add_files();
    file->set_path(f.path);
    file->set_size_bytes(f.size_bytes);
  }
  return pb;
}

Result<std::vector<IndexMetadata>> ParseIndexSection(std::span<const uint8_t> section, const std::string& path) {
  std::vector<IndexMetadata> out;
  if (section.empty()) return out;
  lance::table::IndexSection pb;
  if (!pb.ParseFromArray(section.data(), static_cast<int>(section.size()))) {
    return Status::Corruption(path + ": index section is not a valid lance.table.IndexSection");
  }
  for (const auto& index : pb.indices()) {
    ASSIGN_OR_RETURN(IndexMetadata m, IndexFromProto(index, path));
    out.push_back(std::move(m));
  }
  return out;
}

Status RemapIndexFragments(bool stable_row_ids, const lance::table::Transaction::Rewrite& rewrite,
                           std::vector<uint8_t>* section, const std::string& path) {
  if (section->empty()) return Status::OK();
  lance::table::IndexSection pb;
  if (!pb.ParseFromArray(section->data(), static_cast<int>(section->size()))) {
    return Status::Corruption(path + ": index section is not a valid lance.table.IndexSection");
  }
  for (auto& index : *pb.mutable_indices()) {
    ASSIGN_OR_RETURN(IndexMetadata m, IndexFromProto(index, path));
    // Only these record rows by row id; zone indexes keep physical offsets, and kinds we
    // do not know may too.
    std::string url = m.type_url;
    std::transform(url.begin(), url.end(), url.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool by_row_id = url == "/lance.table.btreeindexdetails" || url == "/lance.table.bitmapindexdetails" ||
                           url == "/lance.table.labellistindexdetails";
    std::set<uint64_t> covered(m.fragment_ids.begin(), m.fragment_ids.end());
    for (const auto& group : rewrite.groups()) {
      bool all = true;
      for (const auto& old : group.old_fragments()) all = covered.erase(old.id()) > 0 && all;
      if (stable_row_ids && by_row_id && all) {
        for (const auto& f : group.new_fragments()) covered.insert(f.id());
      }
    }
    m.fragment_ids.assign(covered.begin(), covered.end());
    ASSIGN_OR_RETURN(lance::table::IndexMetadata updated, IndexToProto(m));
    index = std::move(updated);
  }
  section->resize(pb.ByteSizeLong());
  pb.SerializeToArray(section->data(), static_cast<int>(section->size()));
  return Status::OK();
}

}  // namespace lancet::table
