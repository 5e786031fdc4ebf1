#include "lancet/media_option.h"

#include <fstream>
#include <iterator>

namespace lancet::cli {

Result<media::PluginSpec> ParsePluginSpec(const std::string& text) {
  media::PluginSpec spec;
  std::string config_file;
  size_t colon = text.rfind(':');
  spec.library = colon == std::string::npos ? text : text.substr(0, colon);
  if (colon != std::string::npos) config_file = text.substr(colon + 1);
  if (spec.library.empty()) return Status::InvalidArgument("plugin '" + text + "' names no library");
  if (colon != std::string::npos) {
    if (config_file.empty()) return Status::InvalidArgument("plugin '" + text + "': empty config file name");
    std::ifstream in(config_file, std::ios::binary | std::ios::ate);
    if (!in) return Status::InvalidArgument("plugin config file '" + config_file + "' cannot be read");
    auto size = static_cast<uint64_t>(in.tellg());
    if (size > kMaxPluginConfigBytes) {
      return Status::InvalidArgument("plugin config file '" + config_file + "' has " + std::to_string(size) +
                                     " bytes; at most " + std::to_string(kMaxPluginConfigBytes));
    }
    in.seekg(0);
    spec.config.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return spec;
}

Result<std::pair<std::string, media::PluginSpec>> ParseMediaOption(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument("--media '" + text + "' is not COLUMN=LIBRARY[:CONFIG_FILE]");
  }
  ASSIGN_OR_RETURN(media::PluginSpec spec, ParsePluginSpec(text.substr(eq + 1)));
  return std::make_pair(text.substr(0, eq), std::move(spec));
}

}  // namespace lancet::cli
