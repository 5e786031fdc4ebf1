// Index types not built yet. Each type's file replaces its pair here.
#include "index/scalar_index.h"

namespace lancet::index {

#define LANCET_PENDING(Name)                                                                                 \
  Result<std::unique_ptr<ScalarIndexReader>> Open##Name##Index(std::shared_ptr<io::ObjectStore>,             \
                                                               const std::string&, const DataType&) {        \
    return Status::NotSupported(#Name " indexes are not supported yet");                                     \
  }                                                                                                          \
  Result<std::unique_ptr<ScalarIndexBuilder>> Make##Name##Builder(const Field&, std::shared_ptr<io::ObjectStore>, \
                                                                  const std::string&, const BuildOptions&) { \
    return Status::NotSupported(#Name " indexes are not supported yet");                                     \
  }
LANCET_PENDING(ZoneMap)
LANCET_PENDING(BloomFilter)
#undef LANCET_PENDING

}  // namespace lancet::index
