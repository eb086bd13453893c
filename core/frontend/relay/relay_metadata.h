// The `#[metadata]` section TVM's Relay printer appends (tvm.ir.save_json of the meta
// table): a JSON object whose "nodes" hold a Map with the key "relay.Constant" -> Array
// of relay.Constant nodes, each naming in attrs.data an entry of "b64ndarrays", the
// base64 form of TVM's NDArray serialisation (magic 0xDD5E40F096B4A13F, reserved u64,
// DLDevice, ndim i32, DLDataType {code u8, bits u8, lanes u16}, shape i64[ndim], byte
// count i64, little-endian data). decodeMetadata returns the constants in
// meta[relay.Constant] order; errors ("relay.metadata") point at the section header.
#pragma once

#include "core/ir/diagnostic.h"
#include "core/ir/ndarray.h"

#include <string_view>
#include <vector>

namespace loopscape::frontend::relay {

Expected<std::vector<ir::NDArray>> decodeMetadata(std::string_view text, const SourceLocation& where);
/// The base64 b64ndarrays entry for `array` (what TVM writes), for tests and samples.
std::string encodeB64NDArray(const ir::NDArray& array);

} // namespace loopscape::frontend::relay
