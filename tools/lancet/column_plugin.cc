#include "lancet/column_plugin.h"

#include <unistd.h>

#include <filesystem>

#include "lancet/cli_common.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/media_option.h"

namespace lancet::cli {
namespace {

namespace fs = std::filesystem;

bool SafeName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string SelfExe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

const Field* FindField(const Schema& schema, const std::string& column) {
  for (const Field& f : schema.fields) {
    if (f.name == column) return &f;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> InstallPluginDirs(const std::string& exe) {
  if (exe.empty()) return {};
  const fs::path dir = fs::path(exe).parent_path();
  return {(dir / ".." / "plugins").lexically_normal().string(),
          (dir / ".." / "lib" / "lancet" / "plugins").lexically_normal().string()};
}

Result<std::string> FindInstalledPlugin(const std::vector<std::string>& dirs, const std::string& name) {
  if (!SafeName(name)) {
    return Status::InvalidArgument("the dataset names its plugin '" + name +
                                   "', which is not a plugin name ([A-Za-z0-9_-], at most 64); pass --plugin");
  }
  const std::string file = "liblancet_" + name + ".so";
  std::string looked;
  for (const std::string& d : dirs) {
    const fs::path candidate = fs::path(d) / file;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    looked += (looked.empty() ? "" : ", ") + d;
  }
  return Status::NotFound("plugin '" + name + "' (" + file + ") is not in the install's plugin directories (" +
                          (looked.empty() ? "none known" : looked) + "); pass --plugin LIBRARY");
}

Result<std::shared_ptr<media::MediaPlugin>> LoadColumnPlugin(const table::Dataset& dataset, const std::string& column,
                                                             const std::string& option) {
  media::PluginSpec spec;
  if (!option.empty()) {
    ASSIGN_OR_RETURN(spec, ParsePluginSpec(option));
  } else {
    const Field* field = FindField(dataset.schema(), column);
    if (field == nullptr) {
      Status st = CheckColumns(dataset.schema(), {column});
      return st.ok() ? Status::InvalidArgument("column '" + column + "' is not a top-level column") : st;
    }
    auto it = field->metadata.find(media::kMediaPluginKey);
    if (it == field->metadata.end()) {
      return Status::InvalidArgument("column '" + column +
                                     "' records no media plugin (it was not ingested with --media); pass --plugin");
    }
    ASSIGN_OR_RETURN(spec.library, FindInstalledPlugin(InstallPluginDirs(SelfExe()), it->second));
  }
  return media::MediaPlugin::Load(spec);
}

}  // namespace lancet::cli
