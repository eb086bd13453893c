// An `.npy` file (`loopscape-cli check --inputs DIR`): parseNpy, the byte-level reader
// under loadNpy. What it reads must encode (encodeNpy) and read back with the same dtype,
// shape and bytes.
#include "fuzz/fuzz_support.h"

#include "core/ir/npy.h"

#include <cstring>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace loopscape;
  if (size > fuzz::kMaxInputBytes) return -1;
  auto array = ir::parseNpy(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz.npy");
  if (!array) return 0;
  const auto encoded = ir::encodeNpy(*array);
  auto again = ir::parseNpy(encoded, "encoded.npy");
  if (!again)
    fuzz::propertyFailed("an array read from .npy does not read back after encodeNpy: " + again.error().message);
  if (again->dtype() != array->dtype() || again->shape() != array->shape() || again->nbytes() != array->nbytes() ||
      (array->nbytes() != 0 && std::memcmp(again->rawData(), array->rawData(), array->nbytes()) != 0))
    fuzz::propertyFailed("an array read from .npy reads back different after encodeNpy");
  return 0;
}
