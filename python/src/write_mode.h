// The write modes as Python spells them, shared by write_dataset and the fragment writes.
#pragma once

#include <string>

#include "lancet/table/write.h"

namespace lancet::python {

/// "create", "append" or "overwrite"; a bad one raises ValueError.
table::WriteMode ParseWriteMode(const std::string& mode);

}  // namespace lancet::python
