// The dataset handle the binding files share.
#pragma once

#include <memory>

#include "lancet/io/storage_options.h"
#include "lancet/table/dataset.h"

namespace lancet::python {

/// An opened version. Shared with every reader and blob file made from it, which
/// borrow from the dataset and so keep it alive.
struct PyDataset {
  std::shared_ptr<const table::Dataset> dataset;
  io::StorageOptions storage_options;  // to open other versions the same way
};

}  // namespace lancet::python
