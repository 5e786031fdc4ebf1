// CRC-32C (Castagnoli): the checksum the `fst` crate's version-3 footer carries.
// Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>

namespace lancet::index {

/// The CRC-32C of `data` continuing from `crc` (0 to start), as iSCSI/ext4 define it.
uint32_t Crc32c(std::span<const uint8_t> data, uint32_t crc = 0);

}  // namespace lancet::index
