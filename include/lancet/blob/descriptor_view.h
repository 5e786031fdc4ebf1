// A view of Blob V2 descriptor columns for engines without nullable structs or
// unsigned types (lance-spark).
#pragma once

#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::blob {

struct DescriptorViewOptions {
  /// Makes the struct and its children non-null: a null descriptor becomes the all-zero
  /// row (kind 0, position 0, size 0, blob_id 0, blob_uri "").
  bool null_as_sentinel = true;
  /// Widens kind u8 → int16, position and size u64 → int64, blob_id u32 → int64.
  bool widen_unsigned = false;
};

/// \brief The view's field for a descriptor field
/// struct<kind u8, position u64, size u64, blob_id u32, blob_uri utf8>.
///
/// Keeps name, id and metadata. InvalidArgument (naming the field) for another shape.
Result<Field> DescriptorViewField(const Field& descriptor_field, const DescriptorViewOptions& options = {});

/// \brief The view of a descriptor array (of DescriptorViewField's type).
///
/// A null `kind` counts as a null descriptor. InvalidArgument for another shape, or,
/// when widening, a position or size above INT64_MAX (naming the row).
Result<Array> DescriptorView(const Array& descriptors, const DescriptorViewOptions& options = {});

/// \brief Applies the view to every blob descriptor column of a scanned batch.
///
/// Descriptor columns are recognised by the read schema's field metadata
/// lance-encoding:blob = "true" on a struct, top-level or nested in structs and lists;
/// other columns pass through unchanged. Errors name the column.
Result<RecordBatch> DescriptorViewOfBatch(const RecordBatch& scanned, const DescriptorViewOptions& options = {});

}  // namespace lancet::blob
