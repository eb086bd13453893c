// Small helpers over isl 0.25 for core/poly: the per-thread isl context, and C-API calls
// that isl/cpp.h does not wrap (dimension ids, lex order between union maps, sequences of
// schedules, point coordinates, block-style printing). Every helper throws
// isl::exception (or IslError) on failure, like the C++ bindings, so that each core/poly
// entry point catches once and turns the failure into a Diagnostic.
// isl types never leave core/poly: include this header only from core/poly and its tests.
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

namespace loopscape::poly::detail {

/// A failed C-API call (a null result); `what()` carries isl's last message.
struct IslError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The isl context of the calling thread (created on first use, freed at thread exit).
/// isl objects made in one thread must never be used in another.
isl::ctx islContext();

/// While alive, a stop requested on `stop` aborts the calling thread's isl computation
/// (isl_ctx_abort, safe from the thread that requests the stop): isl fails the running
/// operation, the caller's catch turns it into a Diagnostic, and `cancelled()` says why.
/// The context is resumed when the scope ends.
class IslStopScope {
public:
  explicit IslStopScope(const std::stop_token& stop);
  ~IslStopScope();
  IslStopScope(const IslStopScope&) = delete;
  IslStopScope& operator=(const IslStopScope&) = delete;
  /// Whether the computation was aborted by the stop.
  bool cancelled() const;

private:
  isl_ctx* m_ctx;
  std::optional<std::stop_callback<std::function<void()>>> m_callback;
};

/// While alive, the calling thread's isl computation is bounded by `maxOperations` isl
/// operations (isl_ctx_set_max_operations, counted from the scope's start): past it isl
/// fails the running operation with isl_error_quota, the caller's catch turns it into a
/// Diagnostic, and `exceeded()` says why. The previous bound is restored when the scope ends.
class IslQuotaScope {
public:
  explicit IslQuotaScope(unsigned long maxOperations);
  ~IslQuotaScope();
  IslQuotaScope(const IslQuotaScope&) = delete;
  IslQuotaScope& operator=(const IslQuotaScope&) = delete;
  /// Whether the computation ran out of its operations (a failed C-API call; the C++
  /// bindings reset the error when they throw: catch isl::exception_quota for those).
  bool exceeded() const;

private:
  isl_ctx* m_ctx;
  unsigned long m_previous;
};

/// Throws IslError with the context's last error message when `p` is null.
template <typename T> T* check(T* p, const char* what) {
  if (!p) throw IslError(std::string("isl: ") + what + " failed");
  return p;
}

/// An id with an arbitrary name (no parsing: "i.0" stays "i.0").
isl::id makeId(const std::string& name);

/// A set space `[params] -> { name[dims] }` with every parameter and dimension named.
isl::space setSpace(const std::vector<std::string>& params, const std::string& tuple,
                    const std::vector<std::string>& dims);

/// { a -> b : exists x in m1(a), y in m2(b) : x >= y (lexicographically) } (C API).
isl::union_map lexGeUnionMap(const isl::union_map& m1, const isl::union_map& m2);

/// The integer coordinates of a point of a (named-tuple) set.
std::vector<std::int64_t> pointCoordinates(const isl::point& p);
/// The tuple name of the set a point lies in.
std::string pointTupleName(const isl::point& p);

/// Two schedules executed one after the other (isl_schedule_sequence).
isl::schedule scheduleSequence(const isl::schedule& a, const isl::schedule& b);
/// Inserts a band (isl_schedule_insert_partial_schedule) at the root of `s`.
isl::schedule scheduleInsertBand(const isl::schedule& s, const isl::multi_union_pw_aff& band);
/// Inserts a mark with `name` directly below the domain node of `s`.
isl::schedule scheduleInsertMark(const isl::schedule& s, const std::string& name);

/// The schedule tree as block-style YAML (one key per line), for humans.
std::string scheduleToBlockYaml(const isl::schedule& s);
/// Name of a mark node's id.
std::string markName(const isl::schedule_node& node);
/// isl_schedule_node_get_type as a word: "band", "sequence", ...
std::string nodeTypeName(const isl::schedule_node& node);

/// Text of any isl object through operator<<.
template <typename T> std::string str(const T& obj) {
  std::ostringstream os;
  os << obj;
  return os.str();
}

} // namespace loopscape::poly::detail
