// Distributed writes (lancet/table/fragment_write.h): a worker runs the plan and data
// file steps of a write and hands the fragments over as a Transaction; the driver runs
// the commit step once for all of them.
#include "lancet/table/fragment_write.h"

#include <algorithm>
#include <optional>
#include <set>

#include "lancet/io/uri.h"
#include "table/manifest.h"
#include "table/write_plan.h"

namespace lancet::table {
namespace {

using lance::table::DataFragment;
using lance::table::Transaction;

std::string ModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kCreate:
      return "create";
    case WriteMode::kAppend:
      return "append";
    case WriteMode::kOverwrite:
      return "overwrite";
  }
  return "?";
}

// Paths of what a fragment's files occupy: the data files and their blob sidecars
// (data/<stem>/...), so an abort can remove them.
std::vector<std::string> FilesOf(const io::ObjectStore& store, const std::string& root, const Transaction& txn) {
  const auto& frags = txn.has_append() ? txn.append().fragments() : txn.overwrite().fragments();
  std::vector<std::string> paths;
  for (const DataFragment& f : frags) {
    for (const auto& file : f.files()) {
      // Names come from the caller's bytes: only plain file names under data/.
      if (file.path().empty() || file.path().find('/') != std::string::npos || file.path().find("..") == 0) continue;
      paths.push_back(JoinPath(root, "data/" + file.path()));
      const std::string stem = file.path().substr(0, file.path().rfind('.'));
      const std::string dir = JoinPath(root, "data/" + stem);
      auto listed = store.List(dir);
      if (!listed.ok()) continue;
      for (const io::ObjectInfo& o : *listed) {
        if (!o.is_dir) paths.push_back(JoinPath(dir, o.path));
      }
    }
  }
  return paths;
}

Result<std::vector<Transaction>> ParseParts(const std::string& root, std::span<const UncommittedFragments> parts) {
  std::vector<Transaction> txns;
  for (size_t i = 0; i < parts.size(); ++i) {
    Transaction t;
    if (!t.ParseFromString(parts[i].bytes) || (!t.has_append() && !t.has_overwrite())) {
      return Status::InvalidArgument(root + ": part " + std::to_string(i) +
                                     " is not the output of WriteFragments (an append or overwrite transaction)");
    }
    txns.push_back(std::move(t));
  }
  return txns;
}

}  // namespace

Result<UncommittedFragments> WriteFragments(const std::string& uri, RecordBatchReader& input,
                                            const WriteParams& params) {
  if (uri.empty()) return Status::InvalidArgument("WriteFragments needs a path");
  ASSIGN_OR_RETURN(io::ResolvedUri where, io::ResolveUri(uri, params.storage_options));
  ASSIGN_OR_RETURN(WritePlan plan, PlanWrite(where.store, where.root, input, params));
  if (!plan.new_bases.empty()) {
    return Status::NotSupported(plan.root +
                                ": external blob bases are registered when the table is created; create it with "
                                "WriteDataset, then write fragments to append");
  }
  RecordBatchReader& batches = plan.converted ? *plan.converted : input;
  std::vector<std::string> files;
  auto frags = WriteDataFiles(where.store, plan, batches, params.max_rows_per_file, &files);
  if (!frags.ok()) {
    DeleteAll(*where.store, files);
    return frags.status();
  }
  Transaction txn;
  txn.set_read_version(plan.read_version);
  txn.set_uuid(NewUuid());
  UncommittedFragments out;
  auto add = [&](google::protobuf::RepeatedPtrField<DataFragment>* to) {
    for (DataFragment& f : *frags) {
      out.rows += f.physical_rows();
      ++out.fragments;
      *to->Add() = std::move(f);
    }
  };
  if (plan.append) {
    add(txn.mutable_append()->mutable_fragments());
  } else {
    auto* ow = txn.mutable_overwrite();
    add(ow->mutable_fragments());
    for (const auto& f : plan.lance_fields) *ow->add_schema() = f;
    for (const auto& [k, v] : plan.write_schema.metadata) (*ow->mutable_schema_metadata())[k] = v;
  }
  out.bytes = txn.SerializeAsString();
  return out;
}

Result<uint64_t> CommitFragments(const std::string& uri, std::span<const UncommittedFragments> parts,
                                 const WriteParams& params) {
  if (uri.empty()) return Status::InvalidArgument("CommitFragments needs a path");
  ASSIGN_OR_RETURN(io::ResolvedUri where, io::ResolveUri(uri, params.storage_options));
  std::string root = where.root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (parts.empty()) return Status::InvalidArgument(root + ": no fragments to commit");
  ASSIGN_OR_RETURN(std::vector<Transaction> txns, ParseParts(root, parts));

  WriteCommitInput in;
  in.root = root;
  in.mode = params.mode;
  in.append = txns[0].has_append();
  in.enable_stable_row_ids = params.enable_stable_row_ids;
  // Parts written as a new table may still commit as an append (to a dataset that did
  // not exist when they were written), as WriteDataset's appends create a dataset.
  if (in.append && params.mode != WriteMode::kAppend) {
    return Status::InvalidArgument(root + ": the fragments were written as an append, not for mode " +
                                   ModeName(params.mode));
  }
  uint64_t read_version = txns[0].read_version();
  for (size_t i = 0; i < txns.size(); ++i) {
    const Transaction& t = txns[i];
    if (t.has_append() != in.append) {
      return Status::InvalidArgument(root + ": part " + std::to_string(i) + " was written with another mode");
    }
    if (!in.append &&
        (t.overwrite().schema().size() != txns[0].overwrite().schema().size() ||
         !std::equal(t.overwrite().schema().begin(), t.overwrite().schema().end(), txns[0].overwrite().schema().begin(),
                     [](const auto& a, const auto& b) { return a.SerializeAsString() == b.SerializeAsString(); }))) {
      return Status::InvalidArgument(root + ": part " + std::to_string(i) + " has another schema than part 0");
    }
    // Conflicts are judged from the oldest version any part read.
    read_version = std::min(read_version, t.read_version());
    const auto& frags = in.append ? t.append().fragments() : t.overwrite().fragments();
    for (const DataFragment& f : frags) {
      if (f.files_size() == 0)
        return Status::InvalidArgument(root + ": part " + std::to_string(i) + " has an empty fragment");
      for (const auto& file : f.files()) in.blob_info = in.blob_info || file.file_minor_version() == 3;
      in.fragments.push_back(f);
    }
  }
  in.had_read = read_version > 0;
  if (in.append) {
    // An append carries no schema: its files name the field ids of the versions its
    // parts read, and those must still mean the same columns when it commits.
    ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(*where.store, root));
    std::optional<std::string> fields_seen;
    std::set<uint64_t> checked;
    for (const Transaction& t : txns) {
      if (!checked.insert(t.read_version()).second) continue;
      auto loc = std::find_if(manifests.begin(), manifests.end(),
                              [&](const ManifestLocation& m) { return m.version == t.read_version(); });
      if (loc == manifests.end()) {
        return Status::CommitConflict(root + ": version " + std::to_string(t.read_version()) +
                                      ", which the fragments were written against, is gone");
      }
      ASSIGN_OR_RETURN(lance::table::Manifest m, ReadManifest(*where.store, loc->path, loc->size));
      std::string fields;
      for (const auto& f : m.fields()) fields += f.SerializeAsString();
      if (fields_seen && *fields_seen != fields) {
        return Status::InvalidArgument(root + ": the parts were written against versions with different schemas");
      }
      if (!fields_seen) in.lance_fields.assign(m.fields().begin(), m.fields().end());
      fields_seen = std::move(fields);
    }
  } else {
    in.lance_fields.assign(txns[0].overwrite().schema().begin(), txns[0].overwrite().schema().end());
    for (const auto& [k, v] : txns[0].overwrite().schema_metadata()) in.schema_metadata[k] = v;
  }
  return CommitWithRetry(*where.store, root, read_version, BuildWriteCommit(*where.store, in),
                         params.max_commit_attempts);
}

Status AbortFragments(const std::string& uri, std::span<const UncommittedFragments> parts, const WriteParams& params) {
  if (uri.empty()) return Status::InvalidArgument("AbortFragments needs a path");
  ASSIGN_OR_RETURN(io::ResolvedUri where, io::ResolveUri(uri, params.storage_options));
  ASSIGN_OR_RETURN(std::vector<Transaction> txns, ParseParts(where.root, parts));
  for (const Transaction& t : txns) DeleteAll(*where.store, FilesOf(*where.store, where.root, t));
  return Status::OK();
}

}  // namespace lancet::table
