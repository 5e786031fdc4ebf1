// Which media plugin a command loads for a column: the one the user names, or the one
// the column was ingested with, but only from the install's own plugin directory.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lancet/media/plugin_host.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {

/// The directories an install keeps its plugins in, for the executable at `exe`:
/// `<exe dir>/../plugins` (a build tree: build/bin/lancet, build/plugins) and
/// `<exe dir>/../lib/lancet/plugins` (an installed prefix).
std::vector<std::string> InstallPluginDirs(const std::string& exe);

/// \brief The library of the plugin named `name` (as a dataset records it) in `dirs`:
/// `<dir>/liblancet_<name>.so`, the first that exists.
///
/// The name comes from a dataset, so it is untrusted: only [A-Za-z0-9_-] of at most 64
/// characters are accepted, so it can never step out of the directory; InvalidArgument
/// otherwise. NotFound (listing where it looked) when no directory holds it.
Result<std::string> FindInstalledPlugin(const std::vector<std::string>& dirs, const std::string& name);

/// \brief Loads `option` (LIBRARY[:CONFIG_FILE]) when given, else the plugin `column`
/// of `dataset` records (field metadata lancet:media-plugin) from the directories of
/// the running executable. InvalidArgument naming the column when it records none.
Result<std::shared_ptr<media::MediaPlugin>> LoadColumnPlugin(const table::Dataset& dataset, const std::string& column,
                                                             const std::string& option);

}  // namespace lancet::cli
