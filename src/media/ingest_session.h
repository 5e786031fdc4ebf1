// The host side of one plugin ingest.
#pragma once

#include <memory>

#include "lancet/media/plugin_host.h"
#include "media/loaded_plugin.h"

namespace lancet::media {

/// Starts an ingest on `loaded`; the session keeps the library loaded.
Result<std::unique_ptr<IngestSession>> StartPluginIngest(std::shared_ptr<const LoadedPlugin> loaded,
                                                         const HostLimits& limits);

}  // namespace lancet::media
