#include "lancet/file_walk.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

namespace lancet::cli {

namespace fs = std::filesystem;

Result<std::vector<WalkedFile>> WalkFiles(const std::string& dir, const std::string& glob) {
  std::error_code ec;
  const fs::path root = fs::absolute(dir, ec).lexically_normal();
  if (ec) return Status::IOError(dir + ": " + ec.message());
  const fs::file_status st = fs::status(root, ec);
  if (!fs::exists(st)) return Status::NotFound(dir + ": no such directory");
  if (!fs::is_directory(st)) return Status::InvalidArgument(dir + ": not a directory");
  std::vector<WalkedFile> out;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
  if (ec) return Status::IOError(dir + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& e = *it;
    // symlink_status: a link to a file elsewhere is not part of the tree.
    const fs::file_status s = e.symlink_status(ec);
    if (ec) return Status::IOError(e.path().string() + ": " + ec.message());
    if (!fs::is_regular_file(s)) continue;
    WalkedFile f;
    f.relative = e.path().lexically_relative(root).generic_string();
    if (!glob.empty() && fnmatch(glob.c_str(), f.relative.c_str(), 0) != 0) continue;
    f.absolute = e.path().string();
    f.size = e.file_size(ec);
    if (ec) return Status::IOError(f.absolute + ": " + ec.message());
    out.push_back(std::move(f));
  }
  if (ec) return Status::IOError(dir + ": cannot list a directory: " + ec.message());
  std::sort(out.begin(), out.end(), [](const WalkedFile& a, const WalkedFile& b) { return a.relative < b.relative; });
  return out;
}

}  // namespace lancet::cli
