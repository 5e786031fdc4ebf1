#include "media/extract_steps.h"

#include <limits>
#include <map>

#include "util/thread_pool.h"

namespace lancet::media {

std::string RowName(const ExtractOptions& options, uint64_t row) {
  return (options.key == table::RowKey::kRowId ? "row id " : "row address ") + std::to_string(row);
}

Result<std::vector<RowPlan>> PlanRows(const ResolvedRows& resolved, std::span<const uint64_t> rows,
                                      std::span<const uint8_t> request, const MediaPlugin& plugin,
                                      const ExtractOptions& options, const std::string& where,
                                      const std::string& no_index, ExtractStats* stats) {
  std::vector<RowPlan> plans;
  for (size_t i = 0; i < resolved.size(); ++i) {
    if (!resolved[i]) continue;
    const auto& loc = resolved[i]->location;
    const auto& info = resolved[i]->info;
    if (!info) return Status::InvalidArgument(where + " " + RowName(options, rows[i]) + " " + no_index);
    if (info->blob_type != plugin.blob_type()) {
      return Status::InvalidArgument(where + " " + RowName(options, rows[i]) + " has blob_info of blob type " +
                                     std::to_string(info->blob_type) + " but plugin '" + plugin.name() + "' (" +
                                     plugin.library() + ") handles blob type " + std::to_string(plugin.blob_type()));
    }
    RowPlan plan;
    plan.row = i;
    plan.object = loc.object;
    {
      StepTimer timer(&stats->plan_ns);
      ASSIGN_OR_RETURN(plan.blob_ranges,
                       plugin.Plan(info->stream_info->span(), info->entries->span(), request, loc.length));
    }
    for (const io::ByteRange& r : plan.blob_ranges) {
      // Plan checked r against the blob's length; the blob lies inside its object.
      if (r.offset > std::numeric_limits<uint64_t>::max() - loc.offset) {
        return Status::Corruption(where + " " + RowName(options, rows[i]) + ": range overflows its object");
      }
      plan.object_ranges.push_back({loc.offset + r.offset, r.length});
      stats->bytes_planned += r.length;
    }
    stats->planned_ranges += plan.blob_ranges.size();
    ++stats->rows;
    plans.push_back(std::move(plan));
  }
  return plans;
}

Result<std::vector<std::optional<DecodedOutput>>> ReadAndDecode(
    const io::ObjectStore& store, const ResolvedRows& resolved, const std::vector<RowPlan>& plans,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats) {
  // Every object once, its ranges from all rows in one ReadMany so that near ranges of
  // different rows merge.
  struct ObjectReads {
    std::shared_ptr<io::RandomAccessFile> file;  // opened by resolve, if it was
    std::vector<io::ByteRange> ranges;
    std::vector<BufferPtr> bytes;
  };
  std::map<std::string, ObjectReads> objects;
  std::vector<size_t> first_read(plans.size());
  for (size_t p = 0; p < plans.size(); ++p) {
    ObjectReads& reads = objects[plans[p].object];
    if (!reads.file) reads.file = resolved[plans[p].row]->object;
    first_read[p] = reads.ranges.size();
    reads.ranges.insert(reads.ranges.end(), plans[p].object_ranges.begin(), plans[p].object_ranges.end());
  }
  {
    StepTimer timer(&stats->read_ns);
    for (auto& [object, reads] : objects) {
      if (reads.ranges.empty()) continue;
      if (!reads.file) {
        ASSIGN_OR_RETURN(reads.file, store.OpenRead(object));
      }
      ASSIGN_OR_RETURN(reads.bytes, reads.file->ReadMany(reads.ranges, options.io));
      ++stats->objects;
    }
  }
  StepTimer timer(&stats->decode_ns);
  std::vector<std::optional<DecodedOutput>> out(resolved.size());
  // Rows decode independently (plugins take concurrent decodes, media_plugin.h), and a
  // decode is mostly one core's work: the rows of a call spread over the cores.
  std::vector<Status> status(plans.size());
  ParallelFor(ThreadPool::Cpu(), plans.size(), ThreadPool::Cpu().size(), [&](size_t p) {
    const RowPlan& plan = plans[p];
    const auto& info = *resolved[plan.row]->info;
    const std::vector<BufferPtr>& all = objects.at(plan.object).bytes;
    std::vector<BufferPtr> row_bytes(
        all.begin() + static_cast<std::ptrdiff_t>(first_read[p]),
        all.begin() + static_cast<std::ptrdiff_t>(first_read[p] + plan.blob_ranges.size()));
    Result<DecodedOutput> got =
        plugin.Decode(request, info.stream_info->span(), info.entries->span(), plan.blob_ranges, row_bytes);
    if (got.ok()) {
      out[plan.row] = std::move(got).value();
    } else {
      status[p] = got.status();
    }
  });
  for (const Status& st : status) RETURN_IF_ERROR(st);
  return out;
}

std::vector<std::optional<PlannedReads>> ToPlannedReads(size_t rows, std::vector<RowPlan> plans) {
  std::vector<std::optional<PlannedReads>> out(rows);
  for (RowPlan& plan : plans) out[plan.row] = PlannedReads{std::move(plan.object), std::move(plan.object_ranges)};
  return out;
}

}  // namespace lancet::media
