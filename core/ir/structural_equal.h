// Structural equality and hashing of IR, modulo variable and buffer names.
//
// Two programs are equal when they have the same shape and the same constants, and
// their variables and buffers correspond one to one in order of first appearance
// (a bijection, so `i + j` differs from `i + i`). Names of variables and buffers are
// ignored; names of blocks, loop kinds, thread tags, annotations, dtypes, scopes and
// function attributes count. The hash is consistent with equality: equal programs hash
// equal. Used for workload keys and tuning records.
#pragma once

#include "core/ir/prim_func.h"

#include <cstdint>

namespace loopscape::ir {

bool structuralEqual(const Expr& a, const Expr& b);
bool structuralEqual(const Stmt& a, const Stmt& b);
bool structuralEqual(const PrimFunc& a, const PrimFunc& b);

std::uint64_t structuralHash(const Expr& e);
std::uint64_t structuralHash(const Stmt& s);
std::uint64_t structuralHash(const PrimFunc& f);

} // namespace loopscape::ir
