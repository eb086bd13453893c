// Primitive family blockize / transform_layout: the registry rows. The primitives are
// implemented in blockize.cpp and transform_layout.cpp (their header comments list the
// preconditions and reason codes).
#include "core/schedule/primitive/blockize_layout_detail.h"
#include "core/schedule/primitive/families.h"

namespace loopscape::schedule {

std::span<const InstructionKind> blockizeLayoutKinds() {
  static const InstructionKind kinds[] = {
      {.name = "blockize",
       .jsonName = "Blockize",
       .inputNames = {"target"},
       .attrs = {{"preserve_unit_iters", true}},
       .outputs = {RVKind::Block},
       .apply = detail::applyBlockize,
       .appliesTo = AppliesTo::BlockOrLoop,
       .inputSpecs = {{}},
       .description = "make a block of the subtree",
       .shortcut = "Ctrl+Alt+K"},
      {.name = "transform_layout",
       .jsonName = "TransformLayout",
       .inputNames = {"block", "buffer", "index_map"},
       .attrs = {{"pad_value", nullptr}, {"assume_injective_transform", false}},
       .outputs = {},
       .apply = detail::applyTransformLayout,
       .appliesTo = AppliesTo::Block,
       .inputSpecs = {{}, {ParamKind::BufferAccess}, {ParamKind::IndexMap}},
       .description = "re-index a buffer",
       .shortcut = "Ctrl+Alt+Shift+L"},
  };
  return kinds;
}

} // namespace loopscape::schedule
