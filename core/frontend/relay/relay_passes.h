// Graph passes on a typed Relay module, each a function from module to module (nodes are
// immutable: a pass rebuilds what changes and shares the rest). Passes that create nodes
// leave them untyped; run inferTypes (relay_type_infer.h) after them, as runPasses does.
//  * inlineGlobals: every `@f(...)` call in @main replaced by f's body (callee first);
//  * simplifyInference: nn.batch_norm -> data * scale + shift with scale = gamma /
//    sqrt(var + eps), shift = beta - mean * scale (expand_dims to the channel axis), as
//    TVM's BatchNormToInferUnpack; nn.layer_norm -> mean/variance arithmetic; nn.dropout
//    -> its input; a projection of a tuple literal -> the field;
//  * foldConstant: every call whose operands are all constants with known values is
//    evaluated once with the reference interpreter and becomes a new meta constant;
//  * eliminateCommonSubexpr: calls of the same op on the same operands with the same
//    attributes become one node;
//  * dead code needs no pass: a function is what its result reaches.
#pragma once

#include "core/frontend/relay/relay_ir.h"

#include <functional>
#include <string>

namespace loopscape::frontend::relay {

Expected<Module> inlineGlobals(const Module& module);
Module simplifyInference(const Module& module);
Expected<Module> foldConstant(const Module& module);
Module eliminateCommonSubexpr(const Module& module);

struct PassOptions {
  /// AlterOpLayout (relay_alter_layout.h) after SimplifyInference: NCHW convolutions in
  /// NCHW[x]c (blocks of up to `lanes` channels), dense weights packed (up to 2 x `lanes`).
  /// Off by default, as in TVM below opt_level 3.
  bool alterLayout = false;
  int lanes = 16;
};

/// inlineGlobals, simplifyInference, alterOpLayout (when asked), foldConstant (when every
/// constant has a value), eliminateCommonSubexpr, each followed by type inference; `log`
/// receives one line per pass ("SimplifyInference: 12 -> 20 nodes").
Expected<Module> runPasses(const Module& typed, const std::function<void(const std::string&)>& log = {},
                           const PassOptions& options = {});

/// Rebuilds `root` bottom-up: each node with its arguments replaced, then `fn` may
/// return a replacement (or the node itself).
NodePtr rewriteGraph(const NodePtr& root, const std::function<NodePtr(const NodePtr&)>& fn);

} // namespace loopscape::frontend::relay
