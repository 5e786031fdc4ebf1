// Tag and branch refs (docs/format-notes/branches.md).
#include "table/refs.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "lancet/io/uri.h"

namespace lancet::table {
namespace {

constexpr uint64_t kMaxRefFile = 1 << 20;

// Names of the *.json refs under `dir`, undecoded; none if the directory is absent.
Result<std::vector<std::string>> ListRefNames(const io::ObjectStore& store, const std::string& dir) {
  std::vector<std::string> out;
  auto listed = store.List(dir);
  if (!listed.ok()) {
    if (listed.status().IsNotFound()) return out;
    return listed.status();
  }
  for (const io::ObjectInfo& info : *listed) {
    if (info.is_dir || !info.path.ends_with(".json")) continue;
    out.push_back(info.path.substr(0, info.path.size() - 5));
  }
  return out;
}

Result<BranchInfo> ParseBranchJson(std::string_view json, const std::string& path, std::string name) {
  nlohmann::json doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Status::Corruption(path + ": branch file is not a JSON object");
  BranchInfo out;
  out.name = std::move(name);
  auto version = doc.find("parentVersion");
  if (version == doc.end() || !version->is_number_unsigned()) {
    return Status::Corruption(path + ": branch file has no unsigned integer \"parentVersion\"");
  }
  out.parent_version = version->get<uint64_t>();
  auto parent = doc.find("parentBranch");
  if (parent != doc.end() && !parent->is_null()) {
    if (!parent->is_string()) return Status::Corruption(path + ": branch file's \"parentBranch\" is not a string");
    out.parent_branch = parent->get<std::string>();
  }
  auto created = doc.find("createAt");
  if (created != doc.end() && created->is_number_integer()) out.created_at_s = created->get<int64_t>();
  auto size = doc.find("manifestSize");
  if (size != doc.end() && size->is_number_unsigned()) out.manifest_size = size->get<uint64_t>();
  return out;
}

std::string DecodeBranchFileName(std::string_view stem) {
  std::string out;
  for (size_t i = 0; i < stem.size(); ++i) {
    if (stem.substr(i, 3) == "%2F" || stem.substr(i, 3) == "%2f") {
      out.push_back('/');
      i += 2;
    } else {
      out.push_back(stem[i]);
    }
  }
  return out;
}

}  // namespace

Result<std::string> ReadRefFile(const io::ObjectStore& store, const std::string& path, const char* what) {
  ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, store.OpenRead(path));
  ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size > kMaxRefFile) return Status::Corruption(path + ": " + what + " file is implausibly large");
  ASSIGN_OR_RETURN(BufferPtr bytes, file->ReadAt(0, size));
  return std::string(bytes->view());
}

std::string FormatIndexUuid(const std::string& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    auto b = static_cast<uint8_t>(bytes[i]);
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

std::string BranchRefPath(std::string_view name) {
  std::string out = "_refs/branches/";
  for (char c : name) {
    if (c == '/') {
      out += "%2F";
    } else {
      out.push_back(c);
    }
  }
  return out + ".json";
}

Result<std::map<std::string, TagContents>> ReadTags(const io::ObjectStore& store, const std::string& table_root) {
  std::string dir = JoinPath(table_root, "_refs/tags");
  ASSIGN_OR_RETURN(std::vector<std::string> names, ListRefNames(store, dir));
  std::map<std::string, TagContents> out;
  for (std::string& name : names) {
    std::string path = JoinPath(dir, name + ".json");
    ASSIGN_OR_RETURN(std::string text, ReadRefFile(store, path, "tag"));
    ASSIGN_OR_RETURN(TagContents tag, ParseTagJson(text, path));
    out[std::move(name)] = std::move(tag);
  }
  return out;
}

Result<BranchInfo> ReadBranch(const io::ObjectStore& store, const std::string& table_root, const std::string& name) {
  RETURN_IF_ERROR(ValidateBranchName(name));
  std::string path = JoinPath(table_root, BranchRefPath(name));
  auto text = ReadRefFile(store, path, "branch");
  if (!text.ok()) {
    if (text.status().IsNotFound()) return Status::NotFound(path + ": branch '" + name + "' not found");
    return text.status();
  }
  return ParseBranchJson(*text, path, name);
}

Result<std::vector<BranchInfo>> ReadBranches(const io::ObjectStore& store, const std::string& table_root) {
  std::string dir = JoinPath(table_root, "_refs/branches");
  ASSIGN_OR_RETURN(std::vector<std::string> stems, ListRefNames(store, dir));
  std::vector<BranchInfo> out;
  for (const std::string& stem : stems) {
    std::string path = JoinPath(dir, stem + ".json");
    ASSIGN_OR_RETURN(std::string text, ReadRefFile(store, path, "branch"));
    ASSIGN_OR_RETURN(BranchInfo info, ParseBranchJson(text, path, DecodeBranchFileName(stem)));
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const BranchInfo& a, const BranchInfo& b) { return a.name < b.name; });
  return out;
}

Result<std::string> AbsoluteDatasetDir(const std::string& uri, const std::string& root) {
  if (io::IsRemoteUri(uri)) {
    return Status::NotSupported(uri + ": branches and clones of datasets in remote stores are not supported yet");
  }
  std::filesystem::path p(root);
  if (!p.is_absolute()) p = std::filesystem::absolute(p);
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Status ValidateBranchName(std::string_view name) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("branch name '" + std::string(name) + "' " + why);
  };
  if (name.empty()) return Status::InvalidArgument("branch name is empty");
  if (name == "main") return bad("is reserved for the main branch");
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view seg = name.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return bad("has an empty, '.' or '..' segment");
    start = end + 1;
  }
  for (char c : name) {
    if (c == '\\' || c == '%' || static_cast<unsigned char>(c) < 0x20) {
      return bad("contains '\\\\', '%' or a control character");
    }
  }
  return Status::OK();
}

std::string BranchRoot(std::string_view table_root, std::string_view name) {
  return JoinPath(table_root, "tree/" + std::string(name));
}

}  // namespace lancet::table
