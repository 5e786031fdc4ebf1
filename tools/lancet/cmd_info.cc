// `lancet info`: what a dataset holds and how it is stored.
#include <ctime>
#include <functional>
#include <map>

#include "lancet/commands.h"
#include "lancet/format/file_reader.h"
#include "lancet/info_media.h"
#include "lancet/json_writer.h"

namespace lancet::cli {
namespace {

std::string FormatTimestampMs(int64_t ms) {
  if (ms <= 0) return "-";
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Quotes metadata values that are not plain printable text.
std::string ShowValue(const std::string& v) {
  std::string out;
  AppendJsonString(&out, v);
  return out;
}

void AppendField(std::string& out, const Field& f, int depth) {
  out += std::string(2 + 2 * depth, ' ') + f.name + ": " + f.type.ToString();
  if (!f.nullable) out += " not null";
  if (f.id >= 0) out += "  (id " + std::to_string(f.id) + ")";
  out += '\n';
  for (const auto& [k, v] : f.metadata) out += std::string(6 + 2 * depth, ' ') + k + " = " + ShowValue(v) + "\n";
  // Map, list and struct children are listed under their parent.
  for (const Field& c : f.type.children) AppendField(out, c, depth + 1);
}

// Dotted names of every field by Lance field id.
std::map<int32_t, std::string> FieldNamesById(const Schema& schema) {
  std::map<int32_t, std::string> names;
  std::function<void(const Field&, const std::string&)> walk = [&](const Field& f, const std::string& prefix) {
    std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
    if (f.id >= 0) names[f.id] = name;
    for (const Field& c : f.type.children) walk(c, name);
  };
  for (const Field& f : schema.fields) walk(f, "");
  return names;
}

// Blob V2 columns, and which carry blob_info (format 2.3) from which plugin.
void CollectBlobColumns(const Field& f, const std::string& prefix, std::vector<const Field*>* fields,
                        std::vector<std::string>* paths) {
  std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
  if (IsBlobV2Field(f)) {
    fields->push_back(&f);
    paths->push_back(path);
    return;
  }
  if (f.type.id != TypeId::kStruct) return;
  for (const Field& c : f.type.children) CollectBlobColumns(c, path, fields, paths);
}

void AppendBlobColumns(std::string& out, const table::Dataset& ds) {
  std::vector<const Field*> fields;
  std::vector<std::string> paths;
  for (const Field& f : ds.schema().fields) CollectBlobColumns(f, "", &fields, &paths);
  if (fields.empty()) return;
  const auto facts = ds.Describe();
  auto format = facts.find("data_format");
  const bool v23 = format != facts.end() && format->second.find("2.3") != std::string::npos;
  out += "\nBlob columns (" + std::to_string(fields.size()) + "):\n";
  for (size_t i = 0; i < fields.size(); ++i) {
    out += "  " + paths[i] + ": ";
    auto plugin = fields[i]->metadata.find("lancet:media-plugin");
    auto type = fields[i]->metadata.find("lancet:media-blob-type");
    if (!v23) {
      out += "no blob_info (storage 2.2)\n";
    } else if (plugin != fields[i]->metadata.end()) {
      out += "blob_info from plugin '" + plugin->second + "'" +
             (type != fields[i]->metadata.end() ? " (blob type " + type->second + ")" : std::string()) + "\n";
    } else {
      out += "blob_info member present, no plugin recorded\n";
    }
  }
}

struct InfoState {
  std::string dataset;
  VersionSelector selector;
  bool all_fragments = false;
  bool no_encodings = false;
  uint64_t video_rows = 20;

  int Run() const {
    auto opened = OpenDataset(dataset, selector);
    if (!opened.ok()) return ReportError(opened.status());
    const table::Dataset& ds = **opened;
    std::string out;

    out += "Dataset: " + ds.uri() + "\n";
    out += "Version: " + std::to_string(ds.version()) + "\n";
    out += "Rows: " + std::to_string(ds.CountRows()) + "\n";
    out += "Fragments: " + std::to_string(ds.fragments().size()) + "\n";

    const auto facts = ds.Describe();
    if (!facts.empty()) {
      out += "\nManifest:\n";
      for (const auto& [k, v] : facts) out += "  " + k + ": " + v + "\n";
    }

    auto versions = ds.ListVersions();
    if (!versions.ok()) return ReportError(versions.status(), dataset);
    out += "\nVersions (" + std::to_string(versions->size()) + "):\n";
    for (const auto& v : *versions) {
      char line[128];
      std::snprintf(line, sizeof(line), "  %6llu  %12llu rows  %s%s\n", static_cast<unsigned long long>(v.version),
                    static_cast<unsigned long long>(v.num_rows), FormatTimestampMs(v.timestamp_ms).c_str(),
                    v.version == ds.version() ? "  (open)" : "");
      out += line;
    }

    auto tags = ds.ListTags();
    if (!tags.ok()) return ReportError(tags.status(), dataset);
    out += "\nTags (" + std::to_string(tags->size()) + "):\n";
    for (const auto& [name, v] : *tags) out += "  " + name + " -> version " + std::to_string(v) + "\n";

    const Schema& schema = ds.schema();
    out += "\nSchema (" + std::to_string(schema.fields.size()) + " fields):\n";
    for (const Field& f : schema.fields) AppendField(out, f, 0);
    if (!schema.metadata.empty()) {
      out += "  schema metadata:\n";
      for (const auto& [k, v] : schema.metadata) out += "    " + k + " = " + ShowValue(v) + "\n";
    }

    AppendBlobColumns(out, ds);
    if (Status st = AppendMediaRows(out, ds, video_rows); !st.ok()) return ReportError(st);

    out += "\nFragments:\n";
    for (const auto& frag : ds.fragments()) {
      out += "  fragment " + std::to_string(frag.id) + ": " + std::to_string(frag.physical_rows) + " physical rows, " +
             std::to_string(frag.deleted_rows) + " deleted, " +
             std::to_string(frag.physical_rows - std::min(frag.deleted_rows, frag.physical_rows)) + " visible\n";
      for (const auto& file : frag.files) {
        out += "    data/" + file.path + "  (format " + std::to_string(file.major) + "." + std::to_string(file.minor);
        if (file.size_bytes > 0) out += ", " + HumanBytes(file.size_bytes);
        out += ", " + std::to_string(file.fields.size()) + " fields)\n";
      }
      if (!frag.deletion_file.empty()) out += "    deletions: " + frag.deletion_file + "\n";
    }

    if (!no_encodings && !ds.fragments().empty()) {
      const auto names = FieldNamesById(schema);
      const auto& frags = ds.fragments();
      const size_t shown = all_fragments ? frags.size() : 1;
      out += all_fragments ? "\nColumn encodings:\n"
                           : "\nColumn encodings (fragment " + std::to_string(frags[0].id) +
                                 "; --all-fragments for every one):\n";
      for (size_t fi = 0; fi < shown; ++fi) {
        for (const auto& file : frags[fi].files) {
          Status st = DescribeFile(ds, file, names, out);
          if (!st.ok()) return ReportError(st);
        }
      }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : ReportError(Status::IOError("<stdout>: write failed"));
  }

  Status DescribeFile(const table::Dataset& ds, const table::DataFileInfo& file,
                      const std::map<int32_t, std::string>& names, std::string& out) const {
    const std::string& path = file.location;
    ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> raw, ds.store()->OpenRead(path));
    std::shared_ptr<io::RandomAccessFile> shared(std::move(raw));
    ASSIGN_OR_RETURN(auto reader, format::FileReader::Open(shared, file.size_bytes));
    out += "  data/" + file.path + " (format " + reader->version().ToString() + ", " +
           std::to_string(reader->num_rows()) + " rows, " + std::to_string(reader->num_columns()) + " columns)\n";
    for (size_t k = 0; k < file.fields.size() && k < file.column_indices.size(); ++k) {
      const int column = file.column_indices[k];
      if (column < 0) continue;  // a field stored without a column of its own (struct parent)
      auto it = names.find(file.fields[k]);
      const std::string name = it == names.end() ? "field " + std::to_string(file.fields[k]) : it->second;
      auto desc = reader->DescribeColumn(column);
      if (!desc.ok()) return desc.status().WithContext(path + " column " + std::to_string(column));
      std::string text = *desc;
      // Indent continuation lines under the column heading.
      std::string indented;
      for (char c : text) {
        indented.push_back(c);
        if (c == '\n') indented += "        ";
      }
      while (!indented.empty() && (indented.back() == ' ' || indented.back() == '\n')) indented.pop_back();
      out += "    " + name + ":\n        " + indented + "\n";
    }
    return Status::OK();
  }
};

}  // namespace

Command AddInfoCommand(CLI::App& root) {
  auto state = std::make_shared<InfoState>();
  CLI::App* app = root.add_subcommand("info", "Describe a dataset: versions, tags, schema, fragments, encodings");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->selector.AddOptions(*app);
  app->add_flag("--all-fragments", state->all_fragments, "Show column encodings of every fragment, not just the first");
  app->add_flag("--no-encodings", state->no_encodings, "Do not open data files to describe their columns");
  app->add_option("--video-rows", state->video_rows,
                  "List video (and audio) rows one per line up to this many, else summarise them (default 20)");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
