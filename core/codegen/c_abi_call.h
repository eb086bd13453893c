// Calling a kernel's C-ABI function `void f(T0* buffer0, ..., int64_t size0, ...)` with
// a run-time number of arguments: the isolated worker and the in-process model executor
// both call kernels they only know by symbol and argument count.
//
// Every argument (a pointer or an int64 size) is passed as a 64-bit integer: on the
// x86-64 System V and AArch64 procedure-call standards both classes travel in the same
// integer registers and stack slots, so `void f(uint64_t, ...)` with the right count is
// call-compatible with `void f(float*, ..., int64_t, ...)`.
#pragma once

#include "core/codegen/runner_protocol.h"

#include <cstdint>
#include <span>
#include <utility>

namespace loopscape::codegen {

namespace detail {

template <std::size_t... I> void callWith(void* fn, const std::uint64_t* a, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, std::uint64_t{})...);
  reinterpret_cast<Fn>(fn)(a[I]...);
}

template <std::size_t... N>
bool callWithCount(void* fn, std::span<const std::uint64_t> args, std::index_sequence<N...>) {
  return ((args.size() == N ? (callWith(fn, args.data(), std::make_index_sequence<N>{}), true) : false) || ...);
}

} // namespace detail

/// Calls `fn` with `args` (buffers as addresses, then sizes). False, without calling, when
/// there are more than kWorkerMaxArgs arguments.
inline bool callCAbi(void* fn, std::span<const std::uint64_t> args) {
  return detail::callWithCount(fn, args, std::make_index_sequence<kWorkerMaxArgs + 1>{});
}

} // namespace loopscape::codegen
