// Command-line plugin specs: "LIBRARY[:CONFIG_FILE]" and "COLUMN=LIBRARY[:CONFIG_FILE]".
#pragma once

#include <string>
#include <utility>

#include "lancet/media/plugin_host.h"
#include "lancet/result.h"

namespace lancet::cli {

/// Config files are small opaque blobs; anything bigger is a mistake.
inline constexpr uint64_t kMaxPluginConfigBytes = 1 << 20;

/// "LIBRARY[:CONFIG_FILE]" (split at the last ':') → the library path and the config
/// file's bytes. InvalidArgument for an empty library or an unreadable or oversized
/// config file.
Result<media::PluginSpec> ParsePluginSpec(const std::string& text);

/// "COLUMN=LIBRARY[:CONFIG_FILE]" → the column path and its plugin.
Result<std::pair<std::string, media::PluginSpec>> ParseMediaOption(const std::string& text);

}  // namespace lancet::cli
