// StorageOptions: key/value settings for a store, with LanceDB's key names.
#pragma once

#include <map>
#include <string>

namespace lancet::io {

/// Keys as LanceDB takes them: aws_access_key_id, aws_secret_access_key,
/// aws_session_token, aws_endpoint, aws_region, allow_http,
/// aws_virtual_hosted_style_request. Explicit options win over the environment.
using StorageOptions = std::map<std::string, std::string>;

}  // namespace lancet::io
