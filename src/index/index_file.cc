#include "index/index_file.h"

namespace lancet::index {

Result<std::unique_ptr<format::FileReader>> OpenIndexFile(const io::ObjectStore& store, const std::string& dir,
                                                          const std::string& name) {
  ASSIGN_OR_RETURN(auto file, store.OpenRead(dir + "/" + name));
  return format::FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file)));
}

Status CheckIndexColumn(const format::FileReader& file, int index, const std::string& name, const DataType& type) {
  const Schema& schema = file.file_schema();
  if (index >= static_cast<int>(schema.fields.size())) {
    return Status::Corruption(file.path() + ": index file has no column '" + name + "' (it has " +
                              std::to_string(schema.fields.size()) + " fields)");
  }
  for (int i = 0; i <= index; ++i) {
    if (!format::IsLeafField(schema.fields[i])) {
      return Status::Corruption(file.path() + ": index file field '" + schema.fields[i].name + "' is " +
                                schema.fields[i].type.ToString() + ", not a single column");
    }
  }
  const Field& f = schema.fields[index];
  if (f.name != name || f.type != type) {
    return Status::Corruption(file.path() + ": index file column " + std::to_string(index) + " is '" + f.name + "' " +
                              f.type.ToString() + ", expected '" + name + "' " + type.ToString());
  }
  return Status::OK();
}

Result<Array> ReadIndexColumn(const format::FileReader& file, int index, uint64_t begin, uint64_t end) {
  const int column = index;
  return file.ReadRange(file.file_schema().fields[index], std::span<const int>(&column, 1), begin, end);
}

Result<Array> TakeIndexColumn(const format::FileReader& file, int index, std::span<const uint64_t> rows) {
  const int column = index;
  return file.Take(file.file_schema().fields[index], std::span<const int>(&column, 1), rows);
}

std::string IndexFileMetadata(const format::FileReader& file, const std::string& key) {
  auto it = file.file_schema().metadata.find(key);
  return it == file.file_schema().metadata.end() ? std::string() : it->second;
}

Result<std::unique_ptr<format::FileWriter>> CreateIndexFile(std::shared_ptr<io::ObjectStore> store,
                                                            const std::string& dir, const std::string& name,
                                                            const Schema& schema) {
  return format::FileWriter::Open(std::move(store), dir + "/" + name, schema);
}

Result<IndexFileEntry> FinishIndexFile(format::FileWriter& writer, const std::string& name) {
  ASSIGN_OR_RETURN(format::FileStats stats, writer.Finish());
  return IndexFileEntry{name, stats.file_size};
}

}  // namespace lancet::index
