// NumPy .npy files: read and write NDArrays in the format numpy.save/numpy.load use.
// Writes format version 1.0 (2.0 when the header exceeds 65535 bytes) with exactly the
// header numpy >= 1.23 writes: "\x93NUMPY", version, header length, then
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" followed by spaces
// (numpy's growth-axis slack, then padding) and '\n' so that the data starts at a
// multiple of 64 bytes. Reads versions 1.0, 2.0 and 3.0 with little-endian descr strings
// '<f2' '<f4' '<f8' '<i1'/'|i1' '<i2' '<i4' '<i8' '|u1' '|b1', C order only.
// Errors are Diagnostics with codes "npy.*" whose message names the file; file contents
// quoted in messages go through quoteForMessage (escaped, cut).
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/ndarray.h"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape::ir {

/// Loads `path`. Codes: "npy.open-failed" (also a directory, a device or a socket),
/// "npy.bad-magic", "npy.bad-version", "npy.bad-header" (also a header longer than 1 MiB
/// or a shape of more than 64 dimensions), "npy.unsupported-dtype", "npy.fortran-order",
/// "npy.truncated" (less data than the header says), "npy.size-mismatch" (more),
/// "npy.too-large" (a file beyond resourceLimits().maxNpyFileBytes, or a shape whose bytes
/// overflow 64 bits), and NDArray::create's codes (the memory limit). The file is read
/// header first, then exactly the data it declares: never more than that into memory.
Expected<NDArray> loadNpy(const std::string& path);
/// Writes `array` to `path` ("npy.write-failed" when the file cannot be written).
Expected<void> saveNpy(const std::string& path, const NDArray& array);

/// Parses the bytes of a whole .npy file (which must hold exactly the data its header
/// declares); `name` is used in messages in place of a path.
Expected<NDArray> parseNpy(std::span<const std::byte> bytes, std::string_view name);
/// The bytes numpy.save would write for `array`.
std::vector<std::byte> encodeNpy(const NDArray& array);
/// numpy's descr string for a scalar dtype ("<f4", "|b1", ...).
std::string npyDescr(DataType dtype);

} // namespace loopscape::ir
