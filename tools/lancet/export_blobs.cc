#include "lancet/export_blobs.h"

#include <cstring>
#include <functional>
#include <numeric>

#include "lancet/table/blob_write.h"
#include "util/array_builder.h"

namespace lancet::cli {
namespace {

constexpr uint8_t kExternalKind = static_cast<uint8_t>(table::BlobKind::kExternal);

bool HasBlob(const Field& f) {
  if (IsBlobV2Field(f)) return true;
  if (f.type.id != TypeId::kStruct) return false;
  for (const Field& c : f.type.children) {
    if (HasBlob(c)) return true;
  }
  return false;
}

std::string ChildPath(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// One row of a descriptor struct<kind u8, position u64, size u64, blob_id u32, blob_uri>.
struct Descriptor {
  bool valid = false;
  uint8_t kind = 0;
  uint64_t position = 0;
  uint64_t size = 0;

  // External blobs of a whole object keep their reference; every other value is
  // exported as its bytes (a slice of an external object has no input form).
  bool AsUri() const { return valid && kind == kExternalKind && position == 0 && size == 0; }
  uint64_t payload() const { return valid && !AsUri() ? size : 0; }
};

template <typename T>
Result<T> ChildValue(const Array& desc, const char* name, int64_t row) {
  for (size_t k = 0; k < desc.type.children.size() && k < desc.children.size(); ++k) {
    if (desc.type.children[k].name != name) continue;
    const Array& c = desc.children[k];
    const int64_t i = desc.offset + row;
    if (c.type.BitWidth() != static_cast<int>(sizeof(T) * 8) || c.buffers.size() < 2 || !c.buffers[1] ||
        i >= c.length || static_cast<uint64_t>(c.offset + i + 1) * sizeof(T) > c.buffers[1]->size()) {
      break;
    }
    return c.values<T>()[i];
  }
  return Status::Corruption(std::string("blob descriptor has no readable '") + name + "' value");
}

Result<Descriptor> ReadDescriptor(const Array& desc, int64_t row) {
  Descriptor d;
  if (desc.IsNull(row)) return d;
  d.valid = true;
  ASSIGN_OR_RETURN(d.kind, ChildValue<uint8_t>(desc, "kind", row));
  ASSIGN_OR_RETURN(d.position, ChildValue<uint64_t>(desc, "position", row));
  ASSIGN_OR_RETURN(d.size, ChildValue<uint64_t>(desc, "size", row));
  return d;
}

// Adds the payload each row of [start, start + sizes.size()) fetches for the blobs
// in `field` (a field of the export schema; `a` the scanned array).
Status AddPayload(const Field& field, const Array& a, int64_t start, std::vector<uint64_t>* sizes) {
  if (IsBlobV2Field(field)) {
    for (size_t i = 0; i < sizes->size(); ++i) {
      ASSIGN_OR_RETURN(const Descriptor d, ReadDescriptor(a, start + static_cast<int64_t>(i)));
      // Saturating: corrupt sizes must not wrap into small batches.
      (*sizes)[i] = d.payload() > UINT64_MAX - (*sizes)[i] ? UINT64_MAX : (*sizes)[i] + d.payload();
    }
    return Status::OK();
  }
  if (!HasBlob(field)) return Status::OK();
  for (size_t k = 0; k < field.type.children.size() && k < a.children.size(); ++k) {
    RETURN_IF_ERROR(AddPayload(field.type.children[k], a.children[k], a.offset + start, sizes));
  }
  return Status::OK();
}

// Rows [start, start + n) of one column turned into export form.
class Converter {
 public:
  Converter(const table::Dataset& ds, std::span<const uint64_t> addresses) : ds_(ds), addresses_(addresses) {}

  Result<Array> Convert(const Field& field, const std::string& path, const Array& a, int64_t start) {
    const auto n = static_cast<int64_t>(addresses_.size());
    if (IsBlobV2Field(field)) return BlobValues(field, path, a, start);
    if (!HasBlob(field)) {
      if (start == 0 && a.offset == 0 && a.length == n) return a;
      std::vector<int64_t> rows(static_cast<size_t>(n));
      std::iota(rows.begin(), rows.end(), start);
      return TakeRows(a, rows);
    }
    if (a.children.size() != field.type.children.size()) {
      return Status::Corruption("column '" + path + "': scanned struct has the wrong number of members");
    }
    std::vector<Array> children;
    for (size_t k = 0; k < a.children.size(); ++k) {
      const Field& c = field.type.children[k];
      ASSIGN_OR_RETURN(Array child, Convert(c, ChildPath(path, c.name), a.children[k], a.offset + start));
      children.push_back(std::move(child));
    }
    std::vector<bool> validity(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) validity[i] = a.IsValid(start + i);
    return MakeStructArray(field.type, n, std::move(children), validity);
  }

 private:
  Result<Array> BlobValues(const Field& field, const std::string& path, const Array& desc, int64_t start) {
    const size_t n = addresses_.size();
    std::vector<Descriptor> rows(n);
    std::vector<uint64_t> fetch, refer;
    for (size_t i = 0; i < n; ++i) {
      auto d = ReadDescriptor(desc, start + static_cast<int64_t>(i));
      if (!d.ok()) return d.status().WithContext("column '" + path + "'");
      rows[i] = *d;
      if (rows[i].AsUri()) {
        refer.push_back(addresses_[i]);
      } else if (rows[i].valid) {
        fetch.push_back(addresses_[i]);
      }
    }
    ASSIGN_OR_RETURN(auto bytes, ds_.TakeBlobs(path, fetch, table::RowKey::kRowAddress));
    ASSIGN_OR_RETURN(auto where, ds_.LocateBlobs(path, refer, table::RowKey::kRowAddress));
    if (bytes.size() != fetch.size() || where.size() != refer.size()) {
      return Status::Internal("column '" + path + "': blob fetch returned a wrong number of values");
    }
    uint64_t total = 0;
    for (const auto& b : bytes) total += b && *b ? (*b)->size() : 0;
    ASSIGN_OR_RETURN(auto data_bytes, Buffer::AllocateUninitialized(total));
    BufferBuilder offsets;
    std::vector<bool> data_valid(n), valid(n);
    std::vector<std::optional<std::string>> uris(n);
    uint64_t pos = 0;
    size_t next_fetch = 0, next_refer = 0;
    offsets.AppendValue<int64_t>(0);
    for (size_t i = 0; i < n; ++i) {
      if (rows[i].AsUri()) {
        const auto& loc = where[next_refer++];
        valid[i] = loc.has_value();
        if (loc) uris[i] = loc->object;
      } else if (rows[i].valid) {
        const auto& b = bytes[next_fetch++];
        valid[i] = data_valid[i] = b.has_value();
        if (b && *b && !(*b)->empty()) {
          std::memcpy(data_bytes->mutable_data() + pos, (*b)->data(), (*b)->size());
          pos += (*b)->size();
        }
      }
      offsets.AppendValue(static_cast<int64_t>(pos));
    }
    bytes.clear();
    Array data;
    data.type = MakeType(TypeId::kLargeBinary);
    data.length = static_cast<int64_t>(n);
    data.buffers = {ValidityFromVector(data_valid, &data.null_count), offsets.Finish(), std::move(data_bytes)};
    ASSIGN_OR_RETURN(Array uri, MakeBinaryArray(MakeType(TypeId::kUtf8), uris));
    return MakeStructArray(field.type, static_cast<int64_t>(n), {std::move(data), std::move(uri)}, valid);
  }

  const table::Dataset& ds_;
  std::span<const uint64_t> addresses_;
};

Result<Field> ExportField(const Field& f) {
  if (IsBlobV2Field(f)) {
    // Checked so a bad threshold fails the export, not a later import; the metadata
    // stays as the dataset has it: a field without thresholds gets the defaults on
    // import, as it did here, and the round trip keeps the schema.
    RETURN_IF_ERROR(table::BlobThresholdsOf(f).status());
    Field out = f;
    out.type = table::MakeBlobField(f.name, f.nullable).type;
    return out;
  }
  if (!HasBlob(f)) return f;
  Field out = f;
  for (Field& c : out.type.children) {
    ASSIGN_OR_RETURN(c, ExportField(c));
  }
  return out;
}

}  // namespace

Result<Schema> BlobExportSchema(const Schema& logical) {
  Schema out = logical;
  for (Field& f : out.fields) {
    ASSIGN_OR_RETURN(f, ExportField(f));
  }
  return out;
}

Status ExportBlobRows(const table::Dataset& ds, const Schema& export_schema, const RecordBatch& scanned,
                      uint64_t bytes_per_batch, const std::function<Status(RecordBatch)>& emit) {
  const size_t ncols = export_schema.fields.size();
  if (scanned.columns.size() != ncols + 1 || scanned.columns.back().type.id != TypeId::kUInt64) {
    return Status::Internal("export scan lacks its _rowaddr column");
  }
  const Array& addr_array = scanned.columns.back();
  const auto nrows = static_cast<size_t>(scanned.num_rows);
  if (addr_array.length != scanned.num_rows || addr_array.null_count != 0) {
    return Status::Internal("export scan has a malformed _rowaddr column");
  }
  const std::span<const uint64_t> addresses(addr_array.values<uint64_t>(), nrows);
  std::vector<uint64_t> payload(nrows);
  for (size_t c = 0; c < ncols; ++c) {
    Status st = AddPayload(export_schema.fields[c], scanned.columns[c], 0, &payload);
    if (!st.ok()) return st.WithContext("column '" + export_schema.fields[c].name + "'");
  }
  for (size_t begin = 0; begin < nrows;) {
    // A row whose payload alone passes the limit gets a batch of its own.
    size_t end = begin + 1;
    uint64_t bytes = payload[begin];
    while (end < nrows && payload[end] <= bytes_per_batch - std::min(bytes, bytes_per_batch)) bytes += payload[end++];
    Converter conv(ds, addresses.subspan(begin, end - begin));
    RecordBatch batch;
    batch.schema = export_schema;
    batch.num_rows = static_cast<int64_t>(end - begin);
    for (size_t c = 0; c < ncols; ++c) {
      const Field& f = export_schema.fields[c];
      ASSIGN_OR_RETURN(Array col, conv.Convert(f, f.name, scanned.columns[c], static_cast<int64_t>(begin)));
      batch.columns.push_back(std::move(col));
    }
    RETURN_IF_ERROR(emit(std::move(batch)));
    begin = end;
  }
  return Status::OK();
}

Result<std::vector<RecordBatch>> ExportBlobRows(const table::Dataset& ds, const Schema& export_schema,
                                                const RecordBatch& scanned, uint64_t bytes_per_batch) {
  std::vector<RecordBatch> out;
  RETURN_IF_ERROR(ExportBlobRows(ds, export_schema, scanned, bytes_per_batch, [&out](RecordBatch b) {
    out.push_back(std::move(b));
    return Status::OK();
  }));
  return out;
}

}  // namespace lancet::cli
