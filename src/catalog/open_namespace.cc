// OpenNamespace: a URI to the implementation that serves it.
#include "lancet/catalog/dir_namespace.h"
#include "lancet/catalog/namespace.h"
#include "lancet/catalog/rest_namespace.h"

namespace lancet::catalog {

Result<std::unique_ptr<Namespace>> OpenNamespace(const std::string& uri, const Properties& properties) {
  if (uri.rfind("http://", 0) == 0 || uri.rfind("https://", 0) == 0) {
    ASSIGN_OR_RETURN(RestNamespaceOptions options, RestNamespace::OptionsFromProperties(properties));
    ASSIGN_OR_RETURN(std::unique_ptr<RestNamespace> rest, RestNamespace::Open(uri, std::move(options)));
    return std::unique_ptr<Namespace>(std::move(rest));
  }
  if (uri.find("://") != std::string::npos && uri.rfind("file://", 0) != 0) {
    return NamespaceError(ErrorCode::kUnsupported,
                          "namespace " + uri + ": only local directories and file:// roots are supported");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<DirectoryNamespace> dir, DirectoryNamespace::Open(uri, properties));
  return std::unique_ptr<Namespace>(std::move(dir));
}

}  // namespace lancet::catalog
