// A dlopen'ed plugin library, and ownership of what the plugin hands out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lancet/buffer.h"
#include "lancet/media/plugin_host.h"
#include "lancet/media_plugin.h"

namespace lancet::media {

/// The library handle plus the plugin its init filled. Destruction releases the plugin,
/// then closes the library; everything the plugin handed out holds a reference, so the
/// library outlives every release callback.
struct LoadedPlugin {
  LoadedPlugin() = default;
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;
  ~LoadedPlugin();

  /// Opens spec.library and runs its init; checks the version, name and function table.
  static Result<std::shared_ptr<const LoadedPlugin>> Open(const PluginSpec& spec);

  /// "<library> (media plugin <name>): <call>", the prefix of every error.
  std::string Where(std::string_view call) const;
  /// The Status for a plugin call that returned `code`.
  Status Failure(std::string_view call, int code, const LancetMediaError& error) const;
  /// The Status for a plugin that broke the ABI contract in `call`.
  Status Broken(std::string_view call, std::string_view what) const;

  std::string library;
  std::string name;
  void* handle = nullptr;
  LancetMediaPlugin plugin{};
};

/// Owns one buffer a plugin handed out and releases it exactly once.
class PluginBuffer {
 public:
  /// Takes *raw (zeroing it), so a struct the host still holds is never released twice.
  PluginBuffer(std::shared_ptr<const LoadedPlugin> loaded, LancetMediaBuffer* raw);
  PluginBuffer(const PluginBuffer&) = delete;
  PluginBuffer& operator=(const PluginBuffer&) = delete;
  ~PluginBuffer();

  /// Checks the buffer (at most `limit` bytes, a pointer and a release when non-empty)
  /// and hands it out as a Buffer that keeps `self` alive. Errors name `call` and `what`.
  static Result<BufferPtr> Share(std::shared_ptr<PluginBuffer> self, uint64_t limit, std::string_view call,
                                 std::string_view what);

 private:
  std::shared_ptr<const LoadedPlugin> loaded_;
  LancetMediaBuffer raw_{};
};

/// Owns the ranges a plan handed out and releases them exactly once.
class PluginRanges {
 public:
  explicit PluginRanges(const LancetMediaRanges& raw) : raw_(raw) {}
  PluginRanges(const PluginRanges&) = delete;
  PluginRanges& operator=(const PluginRanges&) = delete;
  ~PluginRanges() {
    if (raw_.release != nullptr) raw_.release(&raw_);
  }
  const LancetMediaRanges& raw() const { return raw_; }

 private:
  LancetMediaRanges raw_;
};

}  // namespace lancet::media
