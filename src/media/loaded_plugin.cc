#include "media/loaded_plugin.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstring>

namespace lancet::media {
namespace {

constexpr size_t kMaxNameLength = 64;

// The message a plugin wrote, bounded by the struct even without a terminating NUL, with
// control bytes blanked so a hostile message cannot forge lines in a log.
std::string MessageOf(const LancetMediaError& error) {
  std::string text(error.message, strnlen(error.message, sizeof(error.message)));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return text.empty() ? "(no message)" : text;
}

StatusCode CodeOf(int code) {
  switch (code) {
    case LANCET_MEDIA_EINVAL:
      return StatusCode::kInvalidArgument;
    case LANCET_MEDIA_ECORRUPT:
      return StatusCode::kCorruption;
    case LANCET_MEDIA_ENOTSUP:
      return StatusCode::kNotSupported;
    case LANCET_MEDIA_ESINK:
      return StatusCode::kIOError;
    default:
      return StatusCode::kInternal;
  }
}

// Bounded read of the plugin's name: it must be NUL-terminated within kMaxNameLength.
bool ValidName(const char* name, std::string* out) {
  if (name == nullptr) return false;
  size_t n = strnlen(name, kMaxNameLength + 1);
  if (n == 0 || n > kMaxNameLength) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = name[i];
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  out->assign(name, n);
  return true;
}

}  // namespace

LoadedPlugin::~LoadedPlugin() {
  if (plugin.release != nullptr) plugin.release(&plugin);
  if (handle != nullptr) dlclose(handle);
}

std::string LoadedPlugin::Where(std::string_view call) const {
  std::string where = library;
  if (!name.empty()) where += " (media plugin " + name + ")";
  return where + ": " + std::string(call);
}

Status LoadedPlugin::Failure(std::string_view call, int code, const LancetMediaError& error) const {
  return {CodeOf(code), Where(call) + " failed (code " + std::to_string(code) + "): " + MessageOf(error)};
}

Status LoadedPlugin::Broken(std::string_view call, std::string_view what) const {
  return Status::Corruption(Where(call) + ": plugin broke the ABI contract: " + std::string(what));
}

Result<std::shared_ptr<const LoadedPlugin>> LoadedPlugin::Open(const PluginSpec& spec) {
  auto loaded = std::make_shared<LoadedPlugin>();
  loaded->library = spec.library;
  // A bare name would make dlopen search LD_LIBRARY_PATH and the system directories.
  if (spec.library.find('/') == std::string::npos) {
    return Status::InvalidArgument(loaded->Where("load") +
                                   ": a media plugin is loaded from a path containing '/', not a bare name");
  }
  struct stat st {};
  if (stat(spec.library.c_str(), &st) != 0) return Status::NotFound(loaded->Where("load") + ": no such file");
  // Whatever dlerror holds is from this thread (glibc keeps it per thread).
  loaded->handle = dlopen(spec.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (loaded->handle == nullptr) {
    const char* why = dlerror();
    return Status::InvalidArgument(loaded->Where("load") + ": cannot load: " + (why ? why : "unknown dlopen error"));
  }
  void* symbol = dlsym(loaded->handle, LANCET_MEDIA_PLUGIN_INIT_SYMBOL);
  if (symbol == nullptr) {
    return Status::InvalidArgument(loaded->Where("load") + ": not a Lancet media plugin: it exports no " +
                                   LANCET_MEDIA_PLUGIN_INIT_SYMBOL);
  }
  auto init = reinterpret_cast<LancetMediaPluginInitFn>(symbol);
  LancetMediaError error{};
  int code = init(LANCET_MEDIA_ABI_MAJOR, LANCET_MEDIA_ABI_MINOR, spec.config.data(), spec.config.size(),
                  &loaded->plugin, &error);
  if (code != LANCET_MEDIA_OK) return loaded->Failure("init", code, error);
  const LancetMediaPlugin& p = loaded->plugin;
  if (p.abi_major != LANCET_MEDIA_ABI_MAJOR) {
    return Status::InvalidArgument(loaded->Where("init") + ": built for media plugin ABI " +
                                   std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor) +
                                   ", this host speaks " + std::to_string(LANCET_MEDIA_ABI_MAJOR) + "." +
                                   std::to_string(LANCET_MEDIA_ABI_MINOR));
  }
  if (!ValidName(p.name, &loaded->name)) {
    return loaded->Broken("init", "its name is not 1 to 64 characters of [A-Za-z0-9_.-]");
  }
  if (p.ingest_start == nullptr || p.plan == nullptr || p.decode == nullptr) {
    return loaded->Broken("init", "its function table has a NULL entry");
  }
  return std::shared_ptr<const LoadedPlugin>(std::move(loaded));
}

PluginBuffer::PluginBuffer(std::shared_ptr<const LoadedPlugin> loaded, LancetMediaBuffer* raw)
    : loaded_(std::move(loaded)), raw_(*raw) {
  *raw = LancetMediaBuffer{};
}

PluginBuffer::~PluginBuffer() {
  if (raw_.release != nullptr) raw_.release(&raw_);
}

Result<BufferPtr> PluginBuffer::Share(std::shared_ptr<PluginBuffer> self, uint64_t limit, std::string_view call,
                                      std::string_view what) {
  const LancetMediaBuffer& raw = self->raw_;
  const LoadedPlugin& loaded = *self->loaded_;
  if (raw.size > limit) {
    return loaded.Broken(
        call, std::string(what) + " has " + std::to_string(raw.size) + " bytes, the limit is " + std::to_string(limit));
  }
  if (raw.size == 0) return BufferPtr(Buffer::Empty());
  if (raw.data == nullptr) {
    return loaded.Broken(call, std::string(what) + " has " + std::to_string(raw.size) + " bytes at a NULL pointer");
  }
  if (raw.release == nullptr) {
    return loaded.Broken(call,
                         std::string(what) + " has " + std::to_string(raw.size) + " bytes and no release callback");
  }
  const uint8_t* data = raw.data;
  uint64_t size = raw.size;
  return BufferPtr(Buffer::Wrap(data, size, std::move(self)));
}

}  // namespace lancet::media
