#include "lancet/fragment_scan.h"

#include <deque>

namespace lancet::cli {
namespace {

class FragmentScanReader final : public RecordBatchReader {
 public:
  FragmentScanReader(const table::Dataset& ds, table::ScanOptions options) : ds_(ds), options_(std::move(options)) {
    for (const table::FragmentInfo& f : ds_.fragments()) fragments_.push_back(f.id);
    const Schema& read = ds_.read_schema();
    for (const Field& f : read.fields) {
      bool wanted = options_.columns.empty();
      for (const std::string& c : options_.columns) wanted = wanted || c == f.name;
      if (wanted) schema_.fields.push_back(f);
    }
    schema_.metadata = read.metadata;
    if (options_.with_row_id) schema_.fields.push_back(MakeField("_rowid", MakeType(TypeId::kUInt64), false));
    if (options_.with_row_addr) schema_.fields.push_back(MakeField("_rowaddr", MakeType(TypeId::kUInt64), false));
  }

  const Schema& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    if (!failed_.ok()) return failed_;
    while (pending_.empty()) {
      if (next_fragment_ >= fragments_.size()) return std::optional<RecordBatch>();
      options_.fragment_ids = {fragments_[next_fragment_++]};
      auto batches = ds_.Scan(options_);
      if (!batches.ok()) {
        failed_ = batches.status();
        return failed_;
      }
      for (RecordBatch& b : *batches) pending_.push_back(std::move(b));
    }
    RecordBatch out = std::move(pending_.front());
    pending_.pop_front();
    return std::optional<RecordBatch>(std::move(out));
  }

 private:
  const table::Dataset& ds_;
  table::ScanOptions options_;
  Schema schema_;
  std::vector<uint64_t> fragments_;
  size_t next_fragment_ = 0;
  std::deque<RecordBatch> pending_;
  Status failed_;
};

}  // namespace

std::unique_ptr<RecordBatchReader> ScanByFragment(const table::Dataset& ds, table::ScanOptions options) {
  return std::make_unique<FragmentScanReader>(ds, std::move(options));
}

}  // namespace lancet::cli
