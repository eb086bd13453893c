// Writes a fused group's te program (relay_fuse.h groupProgram) as a .te file that the
// tensor-expression front end reads back into the same PrimFunc: one placeholder per
// input, one reduce_axis per reduction axis, one compute per stage (lambda parameters
// named as the loops), TOPI's names, and `outputs = [...]`. This is how `relay extract`
// hands a group to the workbench with every schedule primitive available.
#pragma once

#include "core/frontend/te_program.h"

#include <string>

namespace loopscape::frontend::relay {

/// `title` becomes the leading comment (the group's name and ops).
std::string printTeProgram(const TeProgram& program, const std::string& title);

} // namespace loopscape::frontend::relay
