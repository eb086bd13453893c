// The isl scheduler on a program's dependences, and regeneration (see poly_schedule.h).
#include "core/poly/ast_to_tir.h"
#include "core/poly/dependences.h"
#include "core/poly/gpu_mapping.h"
#include "core/poly/isl_util.h"
#include "core/poly/poly_auto_detail.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/tree_transform.h"

#include "core/schedule/schedule_error.h"

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/schedule.h>

#include <fmt/format.h>

namespace loopscape::poly {

using namespace detail;

namespace {

/// Sets the scheduler options of the thread's context for one run and restores them.
class SchedulerOptions {
public:
  explicit SchedulerOptions(const PolyAutoOptions& o) : m_ctx(islContext().get()) {
    m_serialize = isl_options_get_schedule_serialize_sccs(m_ctx);
    m_whole = isl_options_get_schedule_whole_component(m_ctx);
    m_maxCoinc = isl_options_get_schedule_maximize_coincidence(m_ctx);
    m_outer = isl_options_get_schedule_outer_coincidence(m_ctx);
    m_depth = isl_options_get_schedule_maximize_band_depth(m_ctx);
    m_algo = isl_options_get_schedule_algorithm(m_ctx);
    m_maxCoef = isl_options_get_schedule_max_coefficient(m_ctx);
    m_maxConst = isl_options_get_schedule_max_constant_term(m_ctx);
    if (o.fusion == "min") {
      isl_options_set_schedule_serialize_sccs(m_ctx, 1);
      isl_options_set_schedule_whole_component(m_ctx, 0);
      isl_options_set_schedule_maximize_coincidence(m_ctx, 1);
    } else if (o.fusion == "smart") {
      isl_options_set_schedule_serialize_sccs(m_ctx, 0);
      isl_options_set_schedule_whole_component(m_ctx, 0);
      isl_options_set_schedule_maximize_coincidence(m_ctx, 1);
    } else {
      isl_options_set_schedule_serialize_sccs(m_ctx, 0);
      isl_options_set_schedule_whole_component(m_ctx, 1);
      isl_options_set_schedule_maximize_coincidence(m_ctx, 0);
    }
    isl_options_set_schedule_outer_coincidence(m_ctx, o.outerCoincidence ? 1 : 0);
    isl_options_set_schedule_maximize_band_depth(m_ctx, o.maximizeBandDepth ? 1 : 0);
    isl_options_set_schedule_algorithm(m_ctx, o.algorithm == "feautrier" ? ISL_SCHEDULE_ALGORITHM_FEAUTRIER
                                                                           : ISL_SCHEDULE_ALGORITHM_ISL);
    // Polly's bounds (polly-opt-max-coefficient / -max-constant-term = 20): without them
    // the ILP may "fuse" dependent nests by shifting one by the whole extent of the other
    // (matvec_chain: y shifted by 1022 after Bx, 24 s of scheduling for a sequence in
    // disguise); with them such nests are distributed and scheduling stays fast.
    isl_options_set_schedule_max_coefficient(m_ctx, kMaxCoefficient);
    isl_options_set_schedule_max_constant_term(m_ctx, kMaxConstantTerm);
    isl_ctx_reset_error(m_ctx);
    isl_ctx_set_max_operations(m_ctx, o.maxOperations ? o.maxOperations : kDefaultIslMaxOperations);
    isl_ctx_reset_operations(m_ctx);
  }
  ~SchedulerOptions() {
    isl_options_set_schedule_serialize_sccs(m_ctx, m_serialize);
    isl_options_set_schedule_whole_component(m_ctx, m_whole);
    isl_options_set_schedule_maximize_coincidence(m_ctx, m_maxCoinc);
    isl_options_set_schedule_outer_coincidence(m_ctx, m_outer);
    isl_options_set_schedule_maximize_band_depth(m_ctx, m_depth);
    isl_options_set_schedule_algorithm(m_ctx, m_algo);
    isl_options_set_schedule_max_coefficient(m_ctx, m_maxCoef);
    isl_options_set_schedule_max_constant_term(m_ctx, m_maxConst);
    isl_ctx_set_max_operations(m_ctx, 0);
  }
  SchedulerOptions(const SchedulerOptions&) = delete;
  SchedulerOptions& operator=(const SchedulerOptions&) = delete;

private:
  isl_ctx* m_ctx;
  int m_serialize, m_whole, m_maxCoinc, m_outer, m_depth, m_algo, m_maxCoef, m_maxConst;
  static constexpr int kMaxCoefficient = 20;
  static constexpr int kMaxConstantTerm = 20;
};

} // namespace

Expected<isl::schedule> computeIslSchedule(const Scop& scop, const PolyAutoOptions& options) {
  auto deps = computeDependences(scop);
  if (!deps) return Unexpected(deps.error());
  return computeIslSchedule(scop, *deps, options);
}

Expected<isl::schedule> computeIslSchedule(const Scop& scop, const Dependences& deps, const PolyAutoOptions& options) {
  if (options.fusion != "max" && options.fusion != "min" && options.fusion != "smart")
    return Unexpected(schedule::scheduleError(
        "poly_auto", "bad-option",
        fmt::format("fusion must be \"max\", \"smart\" or \"min\", not \"{}\"", options.fusion)));
  if (options.algorithm != "isl" && options.algorithm != "feautrier")
    return Unexpected(schedule::scheduleError(
        "poly_auto", "bad-option", fmt::format("algorithm must be \"isl\" or \"feautrier\", not \"{}\"", options.algorithm)));
  if (options.target != "cpu" && options.target != "gpu")
    return Unexpected(schedule::scheduleError(
        "poly_auto", "bad-option", fmt::format("target must be \"cpu\" or \"gpu\", not \"{}\"", options.target)));
  if (options.target == "gpu")
    for (std::int64_t size : options.tile)
      if (size < 1)
        return Unexpected(schedule::scheduleError(
            "poly_auto", "bad-option",
            fmt::format("with target=\"gpu\" every tile size must be positive (the tile of a thread block), not {}",
                        size)));
  isl_ctx* ctx = islContext().get();
  try {
    SchedulerOptions guard(options);
    // The three kinds overlap (a reduction's RAW, WAR and WAW chains are the same pairs):
    // coalescing their union halves the pieces the scheduler builds constraints for.
    isl::union_map validity = deps.all().coalesce();
    isl::union_map proximity = deps.raw.coalesce();
    auto schedule = [&](const isl::union_map& v, const isl::union_map& p) {
      isl::schedule_constraints sc = isl::schedule_constraints::on_domain(scop.domain)
                                         .set_context(scop.context)
                                         .set_validity(v)
                                         .set_coincidence(v)
                                         .set_proximity(p);
      return isl_schedule_constraints_compute_schedule(sc.release());
    };
    isl_schedule* raw = nullptr;
    if (options.simplifyDependences) {
      // Polly's simplification: the constraints implied by the domains are dropped (each
      // relation grows, so whatever schedule satisfies it is valid for the program).
      auto gist = [&](const isl::union_map& m) { return m.gist_domain(scop.domain).gist_range(scop.domain); };
      raw = schedule(gist(validity), gist(proximity));
      if (!raw && isl_ctx_last_error(ctx) != isl_error_quota) isl_ctx_reset_error(ctx);
    }
    if (!raw && isl_ctx_last_error(ctx) != isl_error_quota) raw = schedule(validity, proximity);
    if (!raw) {
      if (isl_ctx_last_error(ctx) == isl_error_quota)
        return Unexpected(Diagnostic::error(
            "poly.quota", fmt::format("the isl scheduler exceeded the bound of {} operations on '{}'; try fusion=\"min\" "
                                      "or the feautrier algorithm, or schedule by hand",
                                      options.maxOperations ? options.maxOperations : kDefaultIslMaxOperations,
                                      scop.funcName)));
      const char* msg = isl_ctx_last_error_msg(ctx);
      return Unexpected(Diagnostic::error("poly.isl", fmt::format("the isl scheduler failed: {}", msg ? msg : "?")));
    }
    isl::schedule out = isl::manage(raw);
    if (options.target == "gpu") {
      auto mapped = mapScheduleToGpu(out, scop, options.tile);
      if (!mapped) return Unexpected(mapped.error());
      out = *mapped;
    } else if (!options.tile.empty()) {
      auto tiled = tileOutermostBands(out, options.tile);
      if (!tiled) return Unexpected(tiled.error());
      out = *tiled;
    }
    return out;
  } catch (const isl::exception_quota&) {
    return Unexpected(Diagnostic::error(
        "poly.quota", fmt::format("the isl scheduler exceeded the bound of {} operations on '{}'; try fusion=\"min\" or "
                                  "the feautrier algorithm, or schedule by hand",
                                  options.maxOperations ? options.maxOperations : kDefaultIslMaxOperations, scop.funcName)));
  } catch (const isl::exception& e) {
    if (isl_ctx_last_error(ctx) == isl_error_quota)
      return Unexpected(Diagnostic::error("poly.quota", fmt::format("the isl scheduler exceeded its operation bound: {}",
                                                                    e.what())));
    return Unexpected(Diagnostic::error("poly.isl", fmt::format("the isl scheduler failed: {}", e.what())));
  }
}

Expected<ir::PrimFunc> polyAuto(const ir::PrimFunc& func, const PolyAutoOptions& options) {
  auto scop = extractScop(func);
  if (!scop) return Unexpected(scop.error());
  auto sched = computeIslSchedule(*scop, options);
  if (!sched) return Unexpected(sched.error());
  auto out = generateFunc(func, *scop, *sched);
  if (!out || options.target != "gpu") return out;
  return finishGpuMapping(*out, /*promoteShared=*/true, nullptr);
}

Expected<ir::PrimFunc> regenerateIdentity(const ir::PrimFunc& func) {
  auto scop = extractScop(func);
  if (!scop) return Unexpected(scop.error());
  return generateFunc(func, *scop, scop->schedule);
}

} // namespace loopscape::poly
