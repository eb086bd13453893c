// The `poly` family of instruction kinds (see poly_schedule.h): each step extracts the
// Scop of the current program, edits its schedule tree, regenerates the PrimFunc and
// checks it against the original program's dependences before replacing the program.
#include "core/poly/ast_to_tir.h"
#include "core/poly/gpu_mapping.h"
#include "core/poly/isl_util.h"
#include "core/poly/legality.h"
#include "core/poly/packing.h"
#include "core/poly/poly_auto_detail.h"
#include "core/poly/poly_optimize.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/program_analysis.h"
#include "core/poly/tree_transform.h"

#include "core/ir/checked_arith.h"
#include "core/ir/visitor.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

namespace loopscape::poly {

using schedule::RV;
using schedule::Schedule;
using schedule::scheduleError;
using schedule::TraceList;
using schedule::TraceValue;

namespace {

/// Edits the schedule tree of `scop`; `deps` are its dependences when already known (null
/// otherwise: an edit that needs them computes them).
using Edit = std::function<Expected<isl::schedule>(const Scop& scop, const Dependences* deps)>;

Expected<std::string> stringAttr(const TraceValue& v, std::string_view prim, std::string_view name) {
  if (const auto* s = v.get<std::string>()) return *s;
  return Unexpected(scheduleError(prim, "bad-arguments", fmt::format("{} expects a string for '{}'", prim, name)));
}

Expected<std::int64_t> intAttr(const Schedule& sch, const TraceValue& v, std::string_view prim, std::string_view name) {
  if (const auto* i = v.get<std::int64_t>()) return *i;
  if (v.get<RV>()) return sch.integer(v, prim);
  return Unexpected(scheduleError(prim, "bad-arguments", fmt::format("{} expects an integer for '{}'", prim, name)));
}

Expected<std::vector<std::int64_t>> intListAttr(const Schedule& sch, const TraceValue& v, std::string_view prim,
                                                std::string_view name) {
  const auto* list = v.get<TraceList>();
  if (!list)
    return Unexpected(scheduleError(prim, "bad-arguments", fmt::format("{} expects a list of integers for '{}'", prim, name)));
  std::vector<std::int64_t> out;
  for (const auto& x : *list) {
    auto i = intAttr(sch, x, prim, name);
    if (!i) return Unexpected(i.error());
    out.push_back(*i);
  }
  return out;
}

/// An integer argument that becomes a coefficient or a bound of the regenerated loops
/// (a tile size, a skew factor, a shift): it must fit their type.
Expected<void> checkFits(std::int64_t value, ir::DataType loopType, std::string_view prim, std::string_view what) {
  if (ir::fitsSignedBits(value, loopType.bits())) return {};
  return Unexpected(
      scheduleError(prim, "too-large",
                    fmt::format("{} {} {} does not fit {} (the type of the program's loops); use a "
                                "value between {} and {}",
                                prim, what, value, loopType.str(), -(std::int64_t{1} << (loopType.bits() - 1)),
                                (std::int64_t{1} << (loopType.bits() - 1)) - 1)));
}

/// The edited schedule's values over the program's instances must fit the loop type, or
/// the regenerated loops would wrap (a skew by 2^30 over 64 time steps reaches 2^36).
/// Parametric bounds (symbolic sizes) are not known here and pass.
Expected<void> checkScheduleRange(const isl::schedule& tree, const Scop& scop, ir::DataType loopType,
                                  std::string_view prim) {
  if (loopType.bits() >= 64) return {};
  const std::int64_t hi = (std::int64_t{1} << (loopType.bits() - 1)) - 1;
  // isl cannot flatten a tree with extension nodes (poly_compute_at_tile): those pass, and
  // the regenerated loops' constants are still checked by generateFunc.
  isl_union_map* flat = isl_schedule_get_map(tree.get());
  if (!flat) {
    isl_ctx_reset_error(tree.ctx().get());
    return {};
  }
  isl::union_map map = isl::manage(flat);
  isl::union_set range = map.intersect_domain(scop.domain).range();
  std::optional<std::string> reached;
  range.foreach_set([&](isl::set set) {
    const int n = static_cast<int>(isl_set_dim(set.get(), isl_dim_set));
    for (int d = 0; d < n && !reached; ++d) {
      for (isl::val v : {set.dim_min_val(d), set.dim_max_val(d)}) {
        if (!v.is_int()) continue;
        if (v.le(isl::val(set.ctx(), static_cast<long>(hi))) && v.ge(isl::val(set.ctx(), static_cast<long>(-hi - 1))))
          continue;
        std::ostringstream text;
        text << v;
        reached = text.str();
        break;
      }
    }
  });
  if (!reached) return {};
  return Unexpected(scheduleError(prim, "too-large",
                                  fmt::format("{}: the transformed loops would reach the value {}, which does not fit "
                                              "{} (the type of the program's loops); use smaller skew factors, "
                                              "shifts or tile sizes",
                                              prim, *reached, loopType.str())));
}

/// One poly step: edit the current program's tree, regenerate, replace. The Scop (and the
/// dependences, for an edit that needs them) are the current state's analyses; the new
/// program is checked against the original by the schedule's legality policy (replace),
/// which reports a violation as every other step's.
/// A rewrite of the regenerated program before it replaces the current one.
using PostEdit = std::function<Expected<ir::PrimFunc>(const ir::PrimFunc&)>;

/// `base`, when given, is the program the edit starts from instead of the current one (a
/// rewrite of it made before the scheduler: poly_optimize's packing); its analysis is the
/// base state's.
Expected<std::vector<RV>> polyStep(Schedule& sch, std::string_view prim, const Edit& edit,
                                   bool needsDependences = false, const PostEdit& post = {},
                                   const schedule::ProgramState* base = nullptr) {
  std::shared_ptr<const detail::ProgramAnalysis> analysis;
  if (needsDependences || base) {
    auto a = detail::analyzeProgram(base ? *base : *sch.state());
    if (!a) return Unexpected(a.error());
    analysis = *a;
  } else {
    analysis = detail::cachedProgramAnalysis(*sch.state());
  }
  std::optional<Scop> extracted;
  if (!analysis) {
    auto s = extractScop(sch.func());
    if (!s) return Unexpected(s.error());
    extracted = std::move(*s);
  }
  const Scop* scop = analysis ? &analysis->scop : &*extracted;
  const Dependences* deps = analysis ? &analysis->deps : nullptr;
  // The isl scheduler and the AST build are the long parts: a stop aborts them.
  detail::IslStopScope stopScope(sch.stopToken());
  auto cancelled = [&] {
    return Diagnostic::error("cancelled", fmt::format("{} was cancelled; the program is unchanged", prim));
  };
  Expected<isl::schedule> tree = [&]() -> Expected<isl::schedule> {
    try {
      return edit(*scop, deps);
    } catch (const isl::exception& e) {
      if (stopScope.cancelled()) return Unexpected(cancelled());
      return Unexpected(Diagnostic::error("poly.isl", fmt::format("{} failed in isl: {}", prim, e.what())));
    } catch (const detail::IslError& e) {
      if (stopScope.cancelled()) return Unexpected(cancelled());
      return Unexpected(Diagnostic::error("poly.isl", fmt::format("{} failed in isl: {}", prim, e.what())));
    }
  }();
  if (!tree) return Unexpected(stopScope.cancelled() ? cancelled() : tree.error());
  if (stopScope.cancelled()) return Unexpected(cancelled());
  Expected<void> inRange = [&]() -> Expected<void> {
    try {
      return checkScheduleRange(*tree, *scop, regeneratedLoopType(sch.func()), prim);
    } catch (const isl::exception& e) {
      return Unexpected(Diagnostic::error("poly.isl", fmt::format("{} failed in isl: {}", prim, e.what())));
    } catch (const detail::IslError& e) {
      return Unexpected(Diagnostic::error("poly.isl", fmt::format("{} failed in isl: {}", prim, e.what())));
    }
  }();
  if (!inRange) return Unexpected(stopScope.cancelled() ? cancelled() : inRange.error());
  auto func = generateFunc(base ? base->func() : sch.func(), *scop, *tree);
  if (!func) return Unexpected(stopScope.cancelled() ? cancelled() : func.error());
  if (stopScope.cancelled()) return Unexpected(cancelled());
  if (post) {
    func = post(*func);
    if (!func) return Unexpected(func.error());
  }
  if (auto ok = sch.replace(std::move(*func)); !ok) return Unexpected(ok.error());
  return std::vector<RV>{};
}

Expected<std::vector<RV>> applyAuto(Schedule& sch, const std::vector<TraceValue>&, const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_auto";
  PolyAutoOptions o;
  auto fusion = stringAttr(attrs[0], prim, "fusion");
  if (!fusion) return Unexpected(fusion.error());
  o.fusion = *fusion;
  const auto* oc = attrs[1].get<bool>();
  const auto* md = attrs[2].get<bool>();
  if (!oc || !md)
    return Unexpected(scheduleError(prim, "bad-arguments",
                                    "poly_auto expects booleans for outer_coincidence and maximize_band_depth"));
  o.outerCoincidence = *oc;
  o.maximizeBandDepth = *md;
  auto algo = stringAttr(attrs[3], prim, "algorithm");
  if (!algo) return Unexpected(algo.error());
  o.algorithm = *algo;
  if (attrs.size() > 4) {
    auto tile = intListAttr(sch, attrs[4], prim, "tile");
    if (!tile) return Unexpected(tile.error());
    for (std::int64_t size : *tile)
      if (auto ok = checkFits(size, regeneratedLoopType(sch.func()), prim, "tile size"); !ok)
        return Unexpected(ok.error());
    o.tile = *tile;
  }
  // Schedule::apply pads missing attributes with their defaults (a trace written before
  // simplify_deps existed gets True).
  const auto* simplify = attrs[5].get<bool>();
  if (!simplify)
    return Unexpected(scheduleError(prim, "bad-arguments", "poly_auto expects a boolean for simplify_deps"));
  o.simplifyDependences = *simplify;
  auto target = stringAttr(attrs[6], prim, "target");
  if (!target) return Unexpected(target.error());
  o.target = *target;
  PostEdit post;
  if (o.target == "gpu")
    post = [](const ir::PrimFunc& f) { return detail::finishGpuMapping(f, /*promoteShared=*/true, nullptr); };
  return polyStep(
      sch, prim,
      [&](const Scop& scop, const Dependences* deps) {
        return deps ? computeIslSchedule(scop, *deps, o) : computeIslSchedule(scop, o);
      },
      /*needsDependences=*/true, post);
}

Expected<std::vector<RV>> applyTile(Schedule& sch, const std::vector<TraceValue>&, const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_tile";
  auto band = stringAttr(attrs[0], prim, "band");
  if (!band) return Unexpected(band.error());
  auto sizes = intListAttr(sch, attrs[1], prim, "sizes");
  if (!sizes) return Unexpected(sizes.error());
  for (std::int64_t size : *sizes)
    if (auto ok = checkFits(size, regeneratedLoopType(sch.func()), prim, "size"); !ok) return Unexpected(ok.error());
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) {
    return tileBand(scop.schedule, *band, *sizes);
  });
}

Expected<std::vector<RV>> applyInterchange(Schedule& sch, const std::vector<TraceValue>&,
                                           const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_interchange";
  auto band = stringAttr(attrs[0], prim, "band");
  if (!band) return Unexpected(band.error());
  auto perm = intListAttr(sch, attrs[1], prim, "permutation");
  if (!perm) return Unexpected(perm.error());
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) {
    return interchangeBand(scop.schedule, *band, *perm);
  });
}

Expected<std::vector<RV>> applySkew(Schedule& sch, const std::vector<TraceValue>&, const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_skew";
  auto band = stringAttr(attrs[0], prim, "band");
  if (!band) return Unexpected(band.error());
  auto member = intAttr(sch, attrs[1], prim, "member");
  auto by = intAttr(sch, attrs[2], prim, "by_member");
  auto factor = intAttr(sch, attrs[3], prim, "factor");
  if (!member) return Unexpected(member.error());
  if (!by) return Unexpected(by.error());
  if (!factor) return Unexpected(factor.error());
  if (auto ok = checkFits(*factor, regeneratedLoopType(sch.func()), prim, "factor"); !ok) return Unexpected(ok.error());
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) {
    return skewBand(scop.schedule, *band, *member, *by, *factor);
  });
}

Expected<std::vector<RV>> applyShift(Schedule& sch, const std::vector<TraceValue>&, const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_shift";
  auto stmt = stringAttr(attrs[0], prim, "statement");
  if (!stmt) return Unexpected(stmt.error());
  auto member = stringAttr(attrs[1], prim, "member");
  if (!member) return Unexpected(member.error());
  auto offset = intAttr(sch, attrs[2], prim, "offset");
  if (!offset) return Unexpected(offset.error());
  if (auto ok = checkFits(*offset, regeneratedLoopType(sch.func()), prim, "offset"); !ok) return Unexpected(ok.error());
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) {
    return shiftStatement(scop.schedule, scop, *stmt, *member, *offset);
  });
}

Expected<std::vector<RV>> applyFuse(Schedule& sch, const std::vector<TraceValue>& inputs, const std::vector<TraceValue>&) {
  const std::string_view prim = "poly_fuse";
  std::vector<std::string> loops;
  for (const auto& v : inputs) {
    auto s = stringAttr(v, prim, "loops");
    if (!s) return Unexpected(s.error());
    loops.push_back(*s);
  }
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) { return fuseBands(scop.schedule, loops); });
}

Expected<std::vector<RV>> applyDistribute(Schedule& sch, const std::vector<TraceValue>&,
                                          const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_distribute";
  auto band = stringAttr(attrs[0], prim, "band");
  if (!band) return Unexpected(band.error());
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) {
    return distributeBand(scop.schedule, *band);
  });
}

Expected<std::vector<RV>> applyMark(Schedule& sch, const std::vector<TraceValue>&, const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_mark";
  auto band = stringAttr(attrs[0], prim, "band");
  if (!band) return Unexpected(band.error());
  auto member = intAttr(sch, attrs[1], prim, "member");
  if (!member) return Unexpected(member.error());
  auto kind = stringAttr(attrs[2], prim, "kind");
  if (!kind) return Unexpected(kind.error());
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) {
    return markMember(scop.schedule, *band, *member, *kind);
  });
}

Expected<std::vector<RV>> applyComputeAtTile(Schedule& sch, const std::vector<TraceValue>&,
                                             const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_compute_at_tile";
  auto block = stringAttr(attrs[0], prim, "block");
  if (!block) return Unexpected(block.error());
  auto loop = stringAttr(attrs[1], prim, "loop");
  if (!loop) return Unexpected(loop.error());
  return polyStep(sch, prim, [&](const Scop& scop, const Dependences*) {
    return computeAtTile(scop.schedule, scop, *block, *loop);
  });
}

/// prepareForOptimize's program for `func` (null: unchanged), kept per thread for the
/// last few programs so that a program optimised again (the tuner's candidates, which
/// differ by their decision only) gets the same prepared program object, and with it the
/// cached analysis (program_analysis.h) and isl's tree.
Expected<schedule::StatePtr> preparedProgram(const ir::PrimFunc& func, const PolyOptimizeOptions& o,
                                             const MachineModel& machine) {
  struct Entry {
    ir::PrimFunc func; ///< kept, so its nodes are not freed (sameProgram)
    bool pack = false, vectorize = false;
    std::string machine;
    schedule::StatePtr prepared;
  };
  thread_local std::vector<Entry> entries;
  const std::string machineText = machine.str();
  auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) {
    return e.pack == o.pack && e.vectorize == o.vectorize && e.machine == machineText &&
           detail::sameProgram(e.func, func);
  });
  if (it != entries.end()) {
    std::rotate(entries.begin(), it, it + 1);
    return entries.front().prepared;
  }
  auto p = detail::prepareForOptimize(func, o, machine);
  if (!p) return Unexpected(p.error());
  schedule::StatePtr prepared = p->changed ? schedule::ProgramState::make(std::move(p->func)) : nullptr;
  constexpr std::size_t kEntries = 4;
  if (entries.size() >= kEntries) entries.pop_back();
  entries.insert(entries.begin(), Entry{func, o.pack, o.vectorize, machineText, prepared});
  return prepared;
}

Expected<std::vector<RV>> applyOptimize(Schedule& sch, const std::vector<TraceValue>&,
                                        const std::vector<TraceValue>& attrs) {
  const std::string_view prim = "poly_optimize";
  PolyOptimizeOptions o;
  auto fusion = stringAttr(attrs[0], prim, "fusion");
  if (!fusion) return Unexpected(fusion.error());
  o.fusion = *fusion;
  auto tile = intListAttr(sch, attrs[1], prim, "tile");
  if (!tile) return Unexpected(tile.error());
  for (std::int64_t size : *tile) {
    if (size < 1) return Unexpected(scheduleError(prim, "bad-size", fmt::format("tile size {} is not positive", size)));
    if (auto ok = checkFits(size, regeneratedLoopType(sch.func()), prim, "tile size"); !ok)
      return Unexpected(ok.error());
  }
  o.tile = *tile;
  auto unrollJam = intListAttr(sch, attrs[2], prim, "unroll_jam");
  if (!unrollJam) return Unexpected(unrollJam.error());
  if (unrollJam->size() > 2 ||
      std::any_of(unrollJam->begin(), unrollJam->end(), [](std::int64_t v) { return v < 1 || v > 64; }))
    return Unexpected(scheduleError(
        prim, "bad-size", "unroll_jam is [rows] or [rows, lanes], each between 1 and 64 ([1]: no unroll-and-jam)"));
  o.unrollJam = *unrollJam;
  const auto* parallel = attrs[3].get<bool>();
  const auto* wavefront = attrs[4].get<bool>();
  const auto* vectorize = attrs[5].get<bool>();
  if (!parallel || !wavefront || !vectorize)
    return Unexpected(
        scheduleError(prim, "bad-arguments", "poly_optimize expects booleans for parallel, wavefront and vectorize"));
  o.parallel = *parallel;
  o.wavefront = *wavefront;
  o.vectorize = *vectorize;
  const auto* pack = attrs[7].get<bool>();
  if (!pack) return Unexpected(scheduleError(prim, "bad-arguments", "poly_optimize expects a boolean for pack"));
  o.pack = *pack;
  auto depth = intAttr(sch, attrs[8], prim, "parallel_depth");
  if (!depth) return Unexpected(depth.error());
  if (*depth < 1 || *depth > 8)
    return Unexpected(scheduleError(prim, "bad-option",
                                    fmt::format("parallel_depth {} is not between 1 and 8 (1: the outermost "
                                                "coincident tile loop alone)",
                                                *depth)));
  o.parallelDepth = static_cast<int>(*depth);
  auto machineText = stringAttr(attrs[6], prim, "machine");
  if (!machineText) return Unexpected(machineText.error());
  MachineModel machine = MachineModel::host();
  if (!machineText->empty()) {
    std::string why;
    auto parsed = MachineModel::parse(*machineText, &why);
    if (!parsed)
      return Unexpected(scheduleError(prim, "bad-option", fmt::format("machine \"{}\": {}", *machineText, why)));
    machine = *parsed;
  }
  // A recorded decision fixes the sizes band by band (replay on any machine).
  std::optional<std::vector<std::vector<std::int64_t>>> decided;
  if (const auto& d = sch.pendingDecision(); d && !d->isNone()) {
    const auto* bands = d->get<TraceList>();
    if (!bands) return Unexpected(scheduleError(prim, "bad-decision", "the decision must be a list of integer lists"));
    decided.emplace();
    for (const auto& band : *bands) {
      auto sizes = intListAttr(sch, band, prim, "decision");
      if (!sizes || std::any_of(sizes->begin(), sizes->end(), [](std::int64_t v) { return v < 1; }))
        return Unexpected(scheduleError(prim, "bad-decision", "the decision must be lists of positive sizes"));
      decided->push_back(*sizes);
    }
  }
  // Packing and the vector tails' separation rewrite the program before the scheduler
  // runs on it (packing.h, tail_split.h).
  auto prepared = preparedProgram(sch.func(), o, machine);
  if (!prepared) return Unexpected(prepared.error());
  const schedule::ProgramState* base = prepared->get();
  auto analysis = detail::analyzeProgram(base ? *base : *sch.state());
  if (!analysis) return Unexpected(analysis.error());
  std::vector<std::vector<std::int64_t>> made;
  std::vector<std::vector<std::string>> fuseGroups;
  std::vector<std::string> renamed;
  auto out = polyStep(
      sch, prim,
      [&](const Scop& scop, const Dependences* deps) -> Expected<isl::schedule> {
        auto* scheduled = &scop == &(*analysis)->scop ? &(*analysis)->islSchedules : nullptr;
        auto r = detail::optimizeIslSchedule(scop, *deps, o, machine, decided ? &*decided : nullptr, scheduled);
        if (!r) return Unexpected(r.error());
        made = r->decisions;
        fuseGroups = r->fuseGroups;
        return r->schedule;
      },
      /*needsDependences=*/true,
      [&](const ir::PrimFunc& f) -> Expected<ir::PrimFunc> {
        auto hoisted = detail::hoistReductionInits(f, &renamed);
        if (!hoisted) return hoisted;
        return detail::fuseParallelLoops(*hoisted, fuseGroups, nullptr);
      },
      base);
  if (!out) return out;
  for (const auto& name : renamed)
    sch.renameBlock(name, name + "_update");
  TraceList decision;
  for (const auto& band : made)
    decision.push_back(TraceList(band.begin(), band.end()));
  sch.setDecision(std::move(decision));
  return out;
}

} // namespace

void registerPolyInstructionKinds() {
  static std::once_flag once;
  std::call_once(once, [] {
    using schedule::AppliesTo;
    using schedule::InstructionKind;
    using schedule::ParamKind;
    static const InstructionKind kinds[] = {
        {.name = kPolyAutoName,
         .jsonName = "PolyAuto",
         .attrs = {{.name = "fusion",
                    .defaultValue = "max",
                    .kind = ParamKind::Choice,
                    .help = "max: fuse whole connected components (AKG); smart: fuse where no parallelism is lost "
                            "(PPCG); min: no fusion across strongly connected components",
                    .choices = {"max", "smart", "min"}},
                   {.name = "outer_coincidence", .defaultValue = false, .help = "isl's schedule_outer_coincidence"},
                   {.name = "maximize_band_depth", .defaultValue = true, .help = "isl's schedule_maximize_band_depth"},
                   {.name = "algorithm",
                    .defaultValue = "isl",
                    .kind = ParamKind::Choice,
                    .help = "isl (Pluto-like) or feautrier",
                    .choices = {"isl", "feautrier"}},
                   {.name = "tile",
                    .defaultValue = TraceList{},
                    .help = "tile sizes for the outermost bands of the result (PPCG's --tile); empty: none"},
                   {.name = "simplify_deps",
                    .defaultValue = true,
                    .help = "schedule on the dependences simplified against the domains, as Polly does (much faster "
                            "for fusion max); unchecked: the exact dependences, as PPCG"},
                   {.name = "target",
                    .defaultValue = "cpu",
                    .kind = ParamKind::Choice,
                    .help = "cpu: the schedule as computed; gpu: PPCG's mapping: the outermost band tiled (tile, 32 by "
                            "default), coincident tile loops bound to blockIdx and point loops to threadIdx, reused "
                            "input tiles copied to shared memory",
                    .choices = {"cpu", "gpu"}}},
         .apply = applyAuto,
         .appliesTo = AppliesTo::BlockOrLoop,
         .description = "run the isl scheduler on the whole program",
         .shortcut = "Ctrl+Alt+Y"},
        {.name = "poly_optimize",
         .jsonName = "PolyOptimize",
         .attrs = {{.name = "fusion",
                    .defaultValue = "smart",
                    .kind = ParamKind::Choice,
                    .help = "fusion of the isl scheduler (as poly_auto); smart keeps a reduction's loops in one band",
                    .choices = {"smart", "max", "min"}},
                   {.name = "tile",
                    .defaultValue = TraceList{},
                    .help = "cache tile sizes of each outermost band; empty: from L1/L2 of the machine"},
                   {.name = "unroll_jam",
                    .defaultValue = TraceList{},
                    .help = "register tile [rows, lanes]; empty: from the vector registers; [1]: no unroll-and-jam"},
                   {.name = "parallel",
                    .defaultValue = true,
                    .help = "mark the outermost coincident tile loop parallel"},
                   {.name = "wavefront",
                    .defaultValue = false,
                    .help = "run the tiles of a band with no coincident member (a stencil) in parallel wavefronts; "
                            "its exact legality check can take tens of seconds"},
                   {.name = "vectorize",
                    .defaultValue = true,
                    .help = "vectorize the innermost coincident stride-1 point loop"},
                   {.name = "machine",
                    .defaultValue = "",
                    .help = "cache and register model, e.g. l1=48K,l2=1M,vector=64,registers=32; empty: this machine"},
                   {.name = "pack",
                    .defaultValue = true,
                    .help = "copy an input a reduction reads with a non-unit stride along its vector loop, and "
                            "reuses, into a buffer with that dimension last (Polly's packing)"},
                   {.name = "parallel_depth",
                    .defaultValue = 1,
                    .help = "how many coincident tile loops are fused into the parallel loop (PPCG's --parallel)"}},
         .isSampling = true,
         .apply = applyOptimize,
         .appliesTo = AppliesTo::BlockOrLoop,
         .description = "isl scheduler, then cache and register tiling, intra-tile order, vector and parallel marks",
         .shortcut = "Ctrl+Alt+O"},
        {.name = "poly_tile",
         .jsonName = "PolyTile",
         .attrs = {{"band", "", ParamKind::SelectionName},
                   {.name = "sizes", .defaultValue = TraceList{}, .formValue = "32, 32"}},
         .apply = applyTile,
         .appliesTo = AppliesTo::Loop,
         .description = "tile the band starting at this loop (isl schedule tree)",
         .shortcut = "Ctrl+Alt+T"},
        {.name = "poly_interchange",
         .jsonName = "PolyInterchange",
         .attrs = {{"band", "", ParamKind::SelectionName},
                   {.name = "permutation", .defaultValue = TraceList{}, .formValue = "1, 0"}},
         .apply = applyInterchange,
         .appliesTo = AppliesTo::Loop,
         .description = "permute the members of the band",
         .shortcut = "Ctrl+Alt+1"},
        {.name = "poly_skew",
         .jsonName = "PolySkew",
         .attrs = {{"band", "", ParamKind::SelectionName}, {"member", 1}, {"by_member", 0}, {"factor", 1}},
         .apply = applySkew,
         .appliesTo = AppliesTo::Loop,
         .description = "skew a band member by another",
         .shortcut = "Ctrl+Alt+2"},
        {.name = "poly_shift",
         .jsonName = "PolyShift",
         .attrs = {{"statement", "", ParamKind::SelectionName},
                   {"member", "", ParamKind::LoopAboveName},
                   {"offset", 0}},
         .apply = applyShift,
         .appliesTo = AppliesTo::Block,
         .description = "shift one statement along a loop",
         .shortcut = "Ctrl+Alt+3"},
        {.name = "poly_fuse",
         .jsonName = "PolyFuse",
         .inputNames = {"loops"},
         .variadic = true,
         .apply = applyFuse,
         .appliesTo = AppliesTo::Loop,
         .inputSpecs = {{ParamKind::SiblingLoopNames}},
         .description = "fuse this loop with a sibling loop",
         .shortcut = "Ctrl+Alt+4"},
        {.name = "poly_distribute",
         .jsonName = "PolyDistribute",
         .attrs = {{"band", "", ParamKind::SelectionName}},
         .apply = applyDistribute,
         .appliesTo = AppliesTo::Loop,
         .description = "distribute the statements of the band",
         .shortcut = "Ctrl+Alt+5"},
        {.name = "poly_mark",
         .jsonName = "PolyMark",
         .attrs = {{"band", "", ParamKind::SelectionName},
                   {"member", 0},
                   {.name = "kind",
                    .defaultValue = "parallel",
                    .kind = ParamKind::Choice,
                    .choices = {"parallel", "vectorized", "unroll"}}},
         .apply = applyMark,
         .appliesTo = AppliesTo::Loop,
         .description = "mark a band member parallel, vectorized or unrolled",
         .shortcut = "Ctrl+Alt+6"},
        {.name = "poly_compute_at_tile",
         .jsonName = "PolyComputeAtTile",
         .attrs = {{"block", "", ParamKind::SelectionName}, {"loop", "", ParamKind::LoopName}},
         .apply = applyComputeAtTile,
         .appliesTo = AppliesTo::Block,
         .description = "compute the block inside a tile loop",
         .shortcut = "Ctrl+Alt+7"},
    };
    schedule::registerInstructionKinds(kinds);
  });
}

namespace {
Expected<void> applyPoly(Schedule& sch, std::string_view name, std::vector<TraceValue> inputs,
                         std::vector<TraceValue> attrs) {
  registerPolyInstructionKinds();
  auto out = sch.apply(name, std::move(inputs), std::move(attrs));
  if (!out) return Unexpected(out.error());
  return {};
}

TraceList intList(const std::vector<std::int64_t>& values) { return TraceList(values.begin(), values.end()); }

TraceValue text(std::string_view s) { return std::string(s); }
} // namespace

Expected<void> polyAuto(Schedule& sch, const PolyAutoOptions& o) {
  return applyPoly(sch, "poly_auto", {},
                   {o.fusion, o.outerCoincidence, o.maximizeBandDepth, o.algorithm, intList(o.tile),
                    o.simplifyDependences, o.target});
}

Expected<void> polyTile(Schedule& sch, std::string_view band, const std::vector<std::int64_t>& sizes) {
  return applyPoly(sch, "poly_tile", {}, {text(band), intList(sizes)});
}

Expected<void> polyInterchange(Schedule& sch, std::string_view band, const std::vector<std::int64_t>& permutation) {
  return applyPoly(sch, "poly_interchange", {}, {text(band), intList(permutation)});
}

Expected<void> polySkew(Schedule& sch, std::string_view band, std::int64_t member, std::int64_t byMember,
                        std::int64_t factor) {
  return applyPoly(sch, "poly_skew", {}, {text(band), member, byMember, factor});
}

Expected<void> polyShift(Schedule& sch, std::string_view statement, std::string_view member, std::int64_t offset) {
  return applyPoly(sch, "poly_shift", {}, {text(statement), text(member), offset});
}

Expected<void> polyFuse(Schedule& sch, const std::vector<std::string>& loops) {
  return applyPoly(sch, "poly_fuse", std::vector<TraceValue>(loops.begin(), loops.end()), {});
}

Expected<void> polyDistribute(Schedule& sch, std::string_view band) {
  return applyPoly(sch, "poly_distribute", {}, {text(band)});
}

Expected<void> polyMark(Schedule& sch, std::string_view band, std::int64_t member, std::string_view kind) {
  return applyPoly(sch, "poly_mark", {}, {text(band), member, text(kind)});
}

Expected<void> polyOptimize(Schedule& sch, const PolyOptimizeOptions& o) {
  return applyPoly(sch, "poly_optimize", {},
                   {o.fusion, intList(o.tile), intList(o.unrollJam), o.parallel, o.wavefront, o.vectorize,
                    text(o.machine ? o.machine->str() : std::string()), o.pack,
                    static_cast<std::int64_t>(o.parallelDepth)});
}

Expected<void> polyComputeAtTile(Schedule& sch, std::string_view block, std::string_view loop) {
  return applyPoly(sch, "poly_compute_at_tile", {}, {text(block), text(loop)});
}

} // namespace loopscape::poly
