// The streaming S3 writer: one PUT for small objects, a multipart upload for large ones.
#pragma once

#include <memory>
#include <string>

#include "io/s3_client.h"
#include "lancet/io/object_store.h"

namespace lancet::io::s3 {

/// Buffers one part (options().part_size) at a time, never the whole object. The
/// object appears only at Close; a writer destroyed before Close (or a failed upload)
/// aborts its multipart upload so no parts are left behind.
std::unique_ptr<ObjectWriter> NewS3Writer(std::shared_ptr<const S3Client> client, std::string key,
                                          std::shared_ptr<IoStats> stats);

}  // namespace lancet::io::s3
