// The search loop (search.h).
#include "core/tune/search.h"

#include "core/codegen/flop_count.h"
#include "core/ir/structural_equal.h"
#include "core/poly/legality.h"
#include "core/schedule/instruction.h"
#include "core/schedule/schedule.h"
#include "core/schedule/trace_python.h"
#include "core/tune/prior_model.h"
#include "core/tune/sketch_rules.h"
#include "core/tune/worker_pool.h"
#include "core/tune/xgb_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <random>
#include <set>
#include <thread>
#include <unordered_set>

namespace loopscape::tune {

namespace {

/// The decisions as text, "|" before each: a key, and how two lists are compared.
std::string decisionsText(const Decisions& decisions) {
  std::string text;
  for (const auto& d : decisions)
    text += "|" + schedule::pythonValue(d);
  return text;
}

using Clock = std::chrono::steady_clock;

struct Candidate {
  int sketch = -1; ///< index into the sketches; -1: a resumed record's trace
  schedule::Trace trace;
  ir::PrimFunc func;
  std::uint64_t hash = 0;
  std::shared_ptr<const codegen::LoweredFunc> lowered;
  double score = 0;
  bool byPrior = false; ///< `score` is the prior's (the warm start), not the cost model's
};

/// A measured candidate that succeeded (the elite the population starts from).
struct Measured {
  Candidate candidate;
  double seconds = 0;
};

class Search {
public:
  Search(const TuneTask& task, Measurer& measurer, CostModel& model, RecordWriter* writer, const TuneOptions& options,
         const std::function<void(const TuneProgress&)>& onProgress, std::stop_token stop)
      : m_task(task), m_measurer(measurer), m_model(model), m_writer(writer), m_options(options),
        m_onProgress(onProgress), m_stop(std::move(stop)), m_rng(options.seed),
        m_prior(PriorOptions::host(options.space.cores)) {
    m_space = options.space;
    m_space.tir = options.strategy != Strategy::Poly;
    m_space.poly = options.strategy == Strategy::Poly || options.strategy == Strategy::Mixed ||
                   options.strategy == Strategy::Random;
  }

  Expected<void> begin(const std::vector<Record>& previous) {
    m_start = Clock::now();
    m_original = schedule::ProgramState::make(m_task.func);
    m_sketches = generateSketches(m_task.func, m_space);
    if (m_sketches.empty())
      return std::unexpected(Diagnostic::error("tune.empty-space", "the search space has no sketch for this program"));
    auto flops = codegen::countFlops(m_task.func, m_task.sizes);
    m_flops = flops ? flops->flops : 0;
    auto bytes = codegen::compulsoryBytes(m_task.func, m_task.sizes);
    m_bytes = bytes ? *bytes : 0;
    m_workload = workloadKey(m_task.func, m_task.sizes);
    m_result.modelName = std::string(m_model.name());
    resume(previous);
    return {};
  }

  /// Measures up to `want` candidates; returns how many were measured. Three rounds in a
  /// row without a new candidate mark the space exhausted.
  int round(int want) {
    const int before = m_measuredNow;
    while (m_measuredNow - before < want && !stopping() && !m_exhausted) {
      std::vector<Candidate> picks = pick(want - (m_measuredNow - before));
      if (picks.empty()) {
        m_exhausted = ++m_stale >= 3;
        continue;
      }
      m_stale = 0;
      measureBatch(picks);
    }
    return m_measuredNow - before;
  }

  Expected<TuneResult> run(const std::vector<Record>& previous) {
    if (auto ok = begin(previous); !ok) return std::unexpected(ok.error());
    while (m_measuredNow < m_options.trials && !stopping() && !m_exhausted)
      round(std::min(m_options.batchSize, m_options.trials - m_measuredNow));
    m_result.stopped = stopping() && m_measuredNow < m_options.trials;
    m_result.exhausted = m_exhausted && m_measuredNow < m_options.trials;
    return std::move(m_result);
  }

  bool exhausted() const { return m_exhausted; }
  bool stopping() const { return m_stop.stop_requested() || overBudget(); }
  TuneResult& result() { return m_result; }
  int measured() const { return m_measuredNow; }
  /// The best verified median time so far (infinity without one).
  double bestSeconds() const { return m_bestSeconds; }

private:
  bool overBudget() const { return m_options.timeBudgetSeconds > 0 && elapsed() >= m_options.timeBudgetSeconds; }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - m_start).count(); }
  void drop(const std::string& reason) { ++m_result.dropped[reason]; }

  /// What a candidate is made from: sketch `sketch` with `forced` decisions, the rest
  /// sampled from `seed`.
  struct Job {
    int sketch = -1;
    Decisions forced;
    std::uint64_t seed = 0;
  };

  /// A polyhedral candidate depends on its decisions only (nothing is sampled) and costs a
  /// run of the isl scheduler: each one is made once, and kept by this key.
  std::string polyKey(const Job& job) const {
    if (m_sketches[job.sketch].family != Family::Poly) return {};
    return std::to_string(job.sketch) + decisionsText(job.forced);
  }

  /// The jobs' candidates, generated and lowered, in order (nullopt where one was not: the
  /// reason counted). The new ones are made on the worker threads together.
  std::vector<std::optional<Candidate>> makeAll(const std::vector<Job>& jobs) {
    std::vector<std::optional<Candidate>> out(jobs.size());
    std::vector<std::string> keys(jobs.size());
    std::vector<std::size_t> todo;
    std::set<std::string> coming;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      keys[i] = polyKey(jobs[i]);
      if (!keys[i].empty()) {
        if (auto it = m_polyCache.find(keys[i]); it != m_polyCache.end()) {
          out[i] = it->second;
          continue;
        }
        if (!coming.insert(keys[i]).second) continue; // made once below, copied after
      }
      todo.push_back(i);
    }
    std::vector<std::string> why(jobs.size());
    m_pool.run(todo.size(), [&](std::size_t t) {
      const std::size_t i = todo[t];
      if (!m_stop.stop_requested()) out[i] = generateCandidate(jobs[i], why[i]);
    });
    for (std::size_t i : todo) {
      if (!why[i].empty()) drop(why[i]);
      if (!keys[i].empty() && !m_stop.stop_requested()) m_polyCache.emplace(keys[i], out[i]);
    }
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (!out[i] && !keys[i].empty())
        if (auto it = m_polyCache.find(keys[i]); it != m_polyCache.end()) out[i] = it->second;
    return out;
  }

  std::optional<Candidate> makeOne(const Job& job) { return std::move(makeAll({job}).front()); }

  /// Runs on a worker thread: touches nothing of the search but what is constant during a
  /// round; `why` gets the reason when there is no candidate.
  std::optional<Candidate> generateCandidate(const Job& job, std::string& why) const {
    auto sch = applySketch(m_original, m_sketches[job.sketch], m_space, job.forced, job.seed);
    if (!sch) {
      why = "not generated: " + sch.error().code;
      return std::nullopt;
    }
    Candidate c;
    c.sketch = job.sketch;
    c.trace = sch->trace();
    c.func = sch->func();
    c.hash = ir::structuralHash(c.func);
    if (!lowerInto(c, why)) return std::nullopt;
    return c;
  }

  /// `c` lowered for the target (thread-safe); `why` gets the reason when it is not.
  bool lowerInto(Candidate& c, std::string& why) const {
    if (c.lowered) return true;
    auto lowered = m_task.lower(c.func);
    if (!lowered) {
      why = "not lowered: " + lowered.error().code;
      return false;
    }
    c.lowered = std::make_shared<const codegen::LoweredFunc>(std::move(*lowered));
    return true;
  }

  bool lower(Candidate& c) {
    std::string why;
    if (lowerInto(c, why)) return true;
    drop(why);
    return false;
  }

  /// Scores every candidate not scored yet (lowering it); drops those that do not lower.
  void score(std::vector<Candidate>& cands) {
    std::erase_if(cands, [&](Candidate& c) { return !lower(c); });
    std::vector<const codegen::LoweredFunc*> ptrs;
    for (const auto& c : cands)
      ptrs.push_back(c.lowered.get());
    if (ptrs.empty()) return;
    const bool byPrior = warmStart();
    const std::vector<double> scores = (byPrior ? static_cast<CostModel&>(m_prior) : m_model).predict(ptrs);
    for (std::size_t i = 0; i < cands.size() && i < scores.size(); ++i) {
      cands[i].score = std::isfinite(scores[i]) ? scores[i] : 0;
      cands[i].byPrior = byPrior;
    }
  }

  /// Whether candidates are ranked by the prior: until the cost model's first update, while
  /// it has nothing to go on (a model loaded with the records is used at once).
  bool warmStart() const {
    return m_options.warmStart && m_options.strategy != Strategy::Random && !m_modelUpdated && !m_model.informed();
  }

  /// A sketch for a fresh sample: with both families in the space, the family first
  /// (polyShare of their bests), then one of its sketches uniformly.
  int sampleSketch() {
    std::vector<int> tir, poly;
    for (int s = 0; s < static_cast<int>(m_sketches.size()); ++s)
      (m_sketches[s].family == Family::Poly ? poly : tir).push_back(s);
    if (tir.empty() || poly.empty()) return static_cast<int>(m_rng() % m_sketches.size());
    const double share = polyShare(m_familyBest[0], m_familyBest[1]);
    const auto& family = std::uniform_real_distribution<double>(0, 1)(m_rng) < share ? poly : tir;
    return family[m_rng() % family.size()];
  }

  std::vector<Candidate> fresh(int n) {
    std::vector<Candidate> out;
    for (int attempt = 0; attempt < 3 && static_cast<int>(out.size()) < n && !m_stop.stop_requested(); ++attempt) {
      std::vector<Job> jobs;
      for (int k = static_cast<int>(out.size()); k < n; ++k) {
        Job job{sampleSketch(), {}, m_rng()};
        // A polyhedral sketch samples nothing (poly_optimize's model decides): it is moved
        // away from the model's choice by up to three mutations, most of the time.
        if (m_sketches[job.sketch].family == Family::Poly)
          if (auto base = makeOne({job.sketch, {}, 0}))
            if (auto moved = mutatedDecisions(*base, static_cast<int>(m_rng() % 4))) job.forced = std::move(*moved);
        jobs.push_back(std::move(job));
      }
      for (auto& c : makeAll(jobs))
        if (c) out.push_back(std::move(*c));
    }
    return out;
  }

  /// `parent`'s decisions mutated `times` times in a row (the intermediate ones are not
  /// made: a polyhedral candidate costs a run of poly_optimize).
  std::optional<Decisions> mutatedDecisions(const Candidate& parent, int times = 1) {
    if (parent.sketch < 0 || times < 1) return std::nullopt;
    schedule::Trace trace = parent.trace;
    std::optional<Decisions> decisions;
    for (int k = 0; k < times; ++k) {
      auto next = mutate(trace, m_space, m_rng);
      if (!next) break;
      decisions = std::move(next);
      std::size_t i = 0;
      for (auto& inst : trace.instructions)
        if (inst.kind && inst.kind->isSampling && i < decisions->size()) inst.decision = (*decisions)[i++];
    }
    return decisions;
  }

  /// Each candidate's mutated child (nullopt where none was made), made together.
  std::vector<std::optional<Candidate>> children(const std::vector<const Candidate*>& parents) {
    std::vector<Job> jobs;
    std::vector<std::size_t> of; // the parent of each job
    for (std::size_t i = 0; i < parents.size(); ++i)
      if (auto d = mutatedDecisions(*parents[i])) {
        jobs.push_back({parents[i]->sketch, std::move(*d), m_rng()});
        of.push_back(i);
      }
    std::vector<std::optional<Candidate>> out(parents.size());
    auto made = makeAll(jobs);
    for (std::size_t j = 0; j < jobs.size(); ++j)
      out[of[j]] = std::move(made[j]);
    return out;
  }

  std::vector<Candidate> elites(int n) {
    std::vector<const Measured*> sorted;
    for (const auto& m : m_measured)
      sorted.push_back(&m);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->seconds < b->seconds; });
    std::vector<Candidate> out;
    for (int i = 0; i < n && i < static_cast<int>(sorted.size()); ++i)
      out.push_back(sorted[i]->candidate);
    return out;
  }

  /// 1 for a candidate of the polyhedral family, 0 for a TIR one (or one of no sketch):
  /// its index in m_familyBest.
  int familyIndex(const Candidate& c) const {
    return c.sketch >= 0 && m_sketches[c.sketch].family == Family::Poly ? 1 : 0;
  }

  /// `pool` (in ranked order) reordered so that the families take turns, each keeping its
  /// order, the family of the best-scored candidate first.
  void alternateFamilies(std::vector<Candidate>& pool) const {
    const auto polyCount =
        std::count_if(pool.begin(), pool.end(), [&](const Candidate& c) { return familyIndex(c) == 1; });
    if (polyCount == 0 || polyCount == static_cast<std::ptrdiff_t>(pool.size())) return;
    std::vector<Candidate> families[2];
    for (auto& c : pool)
      families[familyIndex(c)].push_back(std::move(c));
    const int first = families[0].front().score >= families[1].front().score ? 0 : 1;
    pool.clear();
    for (std::size_t i = 0; i < std::max(families[0].size(), families[1].size()); ++i)
      for (int f : {first, 1 - first})
        if (i < families[f].size()) pool.push_back(std::move(families[f][i]));
  }

  /// The candidates to measure next: `want` unmeasured ones, best predicted first.
  std::vector<Candidate> pick(int want) {
    std::vector<Candidate> pool;
    switch (m_options.strategy) {
    case Strategy::Random: pool = fresh(want * 2); break;
    case Strategy::Annealing: pool = anneal(want); break;
    default: pool = evolve(); break;
    }
    // Unique and unmeasured.
    std::set<std::uint64_t> seen;
    std::erase_if(pool,
                  [&](const Candidate& c) { return m_measuredHashes.contains(c.hash) || !seen.insert(c.hash).second; });
    if (m_options.strategy != Strategy::Random) {
      const bool informative =
          std::any_of(pool.begin(), pool.end(), [&](const Candidate& c) { return c.score != pool.front().score; });
      if (informative)
        std::stable_sort(pool.begin(), pool.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
      else
        std::shuffle(pool.begin(), pool.end(), m_rng);
      // The prior compares candidates of one family better than across them (it knows
      // nothing of caches, in which the polyhedral tilings differ most): while it ranks,
      // the families take turns, each in its own order, the best-scored one first.
      if (!pool.empty() && pool.front().byPrior) alternateFamilies(pool);
    }
    // Before anything is measured, poly_optimize's own choice for each fusion (its cost
    // model's: often the best polyhedral candidate) goes first.
    if (m_measuredHashes.empty()) {
      std::set<std::uint64_t> bases;
      std::vector<Candidate> missing;
      for (int s = 0; s < static_cast<int>(m_sketches.size()); ++s) {
        if (m_sketches[s].family != Family::Poly) continue;
        auto c = makeOne({s, {}, 0});
        if (!c || !bases.insert(c->hash).second) continue;
        if (std::none_of(pool.begin(), pool.end(), [&](const Candidate& p) { return p.hash == c->hash; }))
          missing.push_back(std::move(*c));
      }
      pool.insert(pool.begin(), std::make_move_iterator(missing.begin()), std::make_move_iterator(missing.end()));
      std::stable_partition(pool.begin(), pool.end(), [&](const Candidate& c) { return bases.contains(c.hash); });
    }
    // eps-greedy: a share of the batch from the rest of the pool at random.
    const int randomCount = static_cast<int>(std::floor(m_options.epsGreedy * want + 0.5));
    if (randomCount > 0 && static_cast<int>(pool.size()) > want) {
      std::vector<Candidate> rest(pool.begin() + (want - randomCount), pool.end());
      std::shuffle(rest.begin(), rest.end(), m_rng);
      pool.resize(want - randomCount);
      pool.insert(pool.end(), rest.begin(), rest.begin() + randomCount);
    }
    std::vector<Candidate> picks;
    for (auto& c : pool) {
      if (static_cast<int>(picks.size()) >= want || m_stop.stop_requested()) break;
      if (!lower(c)) continue;
      picks.push_back(std::move(c));
    }
    return picks;
  }

  /// "" when the exact check accepts `c` (or cannot decide: the primitives' own checks
  /// stand), else the counterexample.
  std::string illegal(const Candidate& c) {
    if (!m_options.checkLegality) return {};
    auto state = schedule::ProgramState::make(c.func);
    auto report = poly::checkLegality(*m_original, *state);
    if (!report) {
      // No verdict (isl's bound, a non-affine access): the verification alone decides.
      ++m_result.legalityUnknown[report.error().code];
      return {};
    }
    if (report->legal) return {};
    return report->counterexample ? poly::counterexampleMessage(*report->counterexample) : "a dependence is broken";
  }

  std::vector<Candidate> evolve() {
    const int eliteCount = std::max(1, m_options.population / 5);
    std::vector<Candidate> population = elites(eliteCount);
    auto more = fresh(m_options.population - static_cast<int>(population.size()));
    population.insert(population.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    score(population);
    std::vector<Candidate> pool = population;
    for (int g = 0; g < m_options.generations && !population.empty() && !m_stop.stop_requested(); ++g) {
      std::uniform_real_distribution<double> unit(0, 1);
      std::vector<const Candidate*> parents, mutating;
      for (std::size_t i = 0; i < population.size(); ++i) {
        // Tournament of two.
        const Candidate& a = population[m_rng() % population.size()];
        const Candidate& b = population[m_rng() % population.size()];
        parents.push_back(a.score >= b.score ? &a : &b);
        mutating.push_back(unit(m_rng) < m_options.mutateProbability ? parents.back() : nullptr);
      }
      std::vector<const Candidate*> toMutate;
      for (const auto* p : mutating)
        if (p) toMutate.push_back(p);
      auto made = children(toMutate);
      std::vector<Candidate> next;
      for (std::size_t i = 0, m = 0; i < parents.size(); ++i) {
        std::optional<Candidate> child = mutating[i] ? std::move(made[m++]) : std::nullopt;
        next.push_back(child ? std::move(*child) : *parents[i]);
      }
      score(next);
      for (const auto& c : next)
        pool.push_back(c);
      population = std::move(next);
    }
    return pool;
  }

  std::vector<Candidate> anneal(int want) {
    std::vector<Candidate> chains = elites(std::max(1, want / 2));
    auto more = fresh(want - static_cast<int>(chains.size()) + 1);
    chains.insert(chains.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    score(chains);
    std::vector<Candidate> pool = chains;
    const int steps =
        std::max(4, m_options.population / std::max(1, static_cast<int>(chains.size())) * m_options.generations);
    std::uniform_real_distribution<double> unit(0, 1);
    for (int step = 0; step < steps && !m_stop.stop_requested(); ++step) {
      const double temperature = 1.0 - static_cast<double>(step) / steps;
      std::vector<const Candidate*> parents;
      for (const auto& c : chains)
        parents.push_back(&c);
      std::vector<Candidate> children;
      for (auto& child : this->children(parents))
        if (child) children.push_back(std::move(*child));
      score(children);
      double scale = 1e-9;
      for (const auto& c : pool)
        scale = std::max(scale, std::abs(c.score));
      for (auto& child : children) {
        pool.push_back(child);
        auto it =
            std::find_if(chains.begin(), chains.end(), [&](const Candidate& c) { return c.sketch == child.sketch; });
        if (it == chains.end()) continue;
        const double delta = (child.score - it->score) / scale;
        if (delta >= 0 || (temperature > 0 && unit(m_rng) < std::exp(delta / temperature))) *it = std::move(child);
      }
    }
    return pool;
  }

  /// One measurement of a batch: the pick it measured, its record, when it was measured.
  struct Outcome {
    std::size_t pick = 0;
    Record record;
    double elapsed = 0;
  };

  /// Measures the picks (built together, run one at a time), then checks the batch's new
  /// bests (checkNewBests) and records every one, in the order measured. Each measurement
  /// is reported at once without its record (TuneProgress::last null); the records follow
  /// at the end of the batch, each with the best as of its trial.
  void measureBatch(std::vector<Candidate>& picks) {
    std::vector<codegen::LoweredFunc> programs;
    for (const auto& c : picks)
      programs.push_back(*c.lowered);
    std::vector<Outcome> batch;
    int failed = 0;
    auto onMeasured = [&](std::size_t i, const MeasureResult& r) {
      if (r.error.starts_with("cancelled")) return false;
      m_measuredHashes.insert(picks[i].hash);
      ++m_measuredNow;
      batch.push_back({i, recordOf(picks[i], r), elapsed()});
      if (!batch.back().record.ok()) ++failed;
      report(nullptr, 0, m_measuredNow, failed);
      return !stopping();
    };
    if (!stopping()) m_measurer.measure(programs, std::vector<bool>(programs.size(), false), m_stop, onMeasured);
    checkNewBests(picks, programs, batch);

    std::vector<const codegen::LoweredFunc*> trained;
    std::vector<double> labels;
    const int first = m_measuredNow - static_cast<int>(batch.size());
    for (std::size_t j = 0; j < batch.size(); ++j) {
      const Candidate& c = picks[batch[j].pick];
      Record& record = batch[j].record;
      if (record.ok()) {
        m_measured.push_back({c, record.medianSeconds()});
        if (c.sketch >= 0) {
          double& best = m_familyBest[familyIndex(c)];
          best = std::max(best, record.throughput());
        }
        if (record.verified && record.medianSeconds() < m_bestSeconds) {
          m_bestSeconds = record.medianSeconds();
          m_result.best = record;
        }
      } else {
        ++m_result.errors;
      }
      trained.push_back(c.lowered.get());
      labels.push_back(record.throughput());
      if (m_modelUpdated && m_options.strategy != Strategy::Random) {
        m_predicted.push_back(c.score);
        m_actual.push_back(labels.back());
      }
      if (m_writer) (void)m_writer->append(record);
      m_result.records.push_back(std::move(record));
      const int trial = first + static_cast<int>(j) + 1;
      m_result.curve.push_back({trial, batch[j].elapsed, bestGflops(), bestGbps()});
      report(&m_result.records.back(), c.byPrior ? std::nan("") : c.score, trial);
    }
    if (!trained.empty()) {
      m_model.update(trained, labels);
      m_modelUpdated = true;
    }
    if (m_predicted.size() >= 4) {
      m_result.modelCorrelation = rankCorrelation(m_predicted, m_actual);
      m_result.modelSamples = static_cast<int>(m_predicted.size());
    }
  }

  /// A candidate faster than the best counts only once the exact legality check accepts it
  /// (up to seconds on a tiled conv2d, so only such candidates take it) and a second run,
  /// verified against the reference, succeeds; its record then keeps the times of both runs
  /// (two worker processes: on a shared VM one process's times can be 1.7x another's for the
  /// same kernel) and is ranked by their median. A batch's candidates are checked fastest
  /// first, after the batch: the next only where it is still faster than the best (the one
  /// checked failed, or its second run was slower), so a batch that improves on the best
  /// several times over costs one check, not one per improvement.
  void checkNewBests(const std::vector<Candidate>& picks, std::span<const codegen::LoweredFunc> programs,
                     std::vector<Outcome>& batch) {
    std::vector<Outcome*> order;
    for (auto& o : batch)
      if (o.record.ok() && o.record.medianSeconds() < m_bestSeconds) order.push_back(&o);
    std::ranges::stable_sort(order, {}, [](const Outcome* o) { return o->record.medianSeconds(); });
    double bar = m_bestSeconds;
    for (Outcome* o : order) {
      Record& record = o->record;
      if (m_stop.stop_requested() || !(record.medianSeconds() < bar)) break;
      auto fail = [this, &record](std::string error) {
        record.error = std::move(error);
        record.seconds.clear();
        setRates(record);
      };
      if (std::string why = illegal(picks[o->pick]); !why.empty()) {
        fail("illegal: " + why);
        drop("illegal");
        continue;
      }
      MeasureResult v = m_measurer.measure(programs.subspan(o->pick, 1), {true}, m_stop).front();
      if (v.error.starts_with("cancelled")) break;
      if (!v.ok()) {
        fail(v.error);
        continue;
      }
      record.verified = true;
      record.seconds.insert(record.seconds.end(), v.seconds.begin(), v.seconds.end());
      setRates(record);
      bar = std::min(bar, record.medianSeconds());
    }
  }

  Record recordOf(const Candidate& c, const MeasureResult& r) {
    Record record;
    record.workload = m_workload;
    record.func = m_task.func.name;
    record.target = m_task.target;
    record.threads = m_task.threads;
    record.fastMath = m_task.fastMath;
    record.family = c.sketch >= 0 ? std::string(familyName(m_sketches[c.sketch].family)) : "";
    record.sketch = c.sketch >= 0 ? m_sketches[c.sketch].name : "";
    record.trace = c.trace;
    record.seconds = r.seconds;
    record.error = r.error;
    record.verified = r.verified;
    record.trial = ++m_trial;
    record.time = utcTimestamp();
    setRates(record);
    return record;
  }

  /// The record's GFLOP/s and GB/s from its median time (0 for a failure).
  void setRates(Record& record) const {
    const bool ok = record.ok();
    record.gflops = ok && m_flops > 0 ? m_flops / record.medianSeconds() / 1e9 : 0;
    record.gbps = ok && m_bytes > 0 ? m_bytes / record.medianSeconds() / 1e9 : 0;
  }

  double bestGflops() const { return m_result.best ? m_result.best->gflops : 0; }
  double bestGbps() const { return m_result.best ? m_result.best->gbps : 0; }

  /// `last`: the record just made final, `trials` its trial in this run; null: a
  /// measurement whose record follows at the end of its batch, `trials` measured so far and
  /// `pendingErrors` of them failed.
  void report(const Record* last, double predicted, int trials, int pendingErrors = 0) {
    if (!m_onProgress) return;
    TuneProgress p;
    p.last = last;
    p.lastPredicted = predicted;
    p.trials = trials;
    p.total = m_options.trials;
    p.errors = m_result.errors + pendingErrors;
    p.bestGflops = bestGflops();
    p.bestGbps = bestGbps();
    p.perByte = !(m_flops > 0) && m_bytes > 0;
    if (m_result.best) {
      p.bestSteps = static_cast<int>(m_result.best->trace.instructions.size());
      p.bestFamily = m_result.best->family;
    }
    p.elapsedSeconds = elapsed();
    p.trialsPerSecond = p.elapsedSeconds > 0 ? m_measuredNow / p.elapsedSeconds : 0;
    p.etaSeconds = p.trialsPerSecond > 0 ? (p.total - m_measuredNow) / p.trialsPerSecond : 0;
    m_onProgress(p);
  }

  /// The records of earlier searches on this workload and target: measured, the model
  /// trained on them, the best their best.
  void resume(const std::vector<Record>& previous) {
    std::vector<Candidate> cands;
    std::vector<double> labels;
    // Each record's candidate made again from its sketch and decisions, all together.
    std::vector<const Record*> mine;
    std::vector<Job> jobs;
    std::vector<std::optional<std::size_t>> jobOf;
    for (const auto& r : previous) {
      if (!r.isFor(m_workload, m_task.target, m_task.threads)) continue;
      mine.push_back(&r);
      jobOf.emplace_back();
      for (int s = 0; s < static_cast<int>(m_sketches.size()); ++s)
        if (m_sketches[s].name == r.sketch) {
          jobOf.back() = jobs.size();
          jobs.push_back({s, decisionsOf(r.trace), 1});
          break;
        }
    }
    auto made = makeAll(jobs);
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const Record& r = *mine[k];
      m_trial = std::max(m_trial, r.trial);
      std::optional<Candidate> c;
      if (jobOf[k]) c = std::move(made[*jobOf[k]]);
      // The sketch rules may have changed since the record was written: a candidate that
      // did not take the record's decisions as they are is not the record's program, and
      // the record's own trace is replayed instead.
      if (c && decisionsText(decisionsOf(c->trace)) != decisionsText(decisionsOf(r.trace))) c.reset();
      if (!c) {
        auto sch = schedule::replayTrace(m_task.func, r.trace);
        if (!sch) continue;
        c = Candidate{.sketch = -1, .trace = sch->trace(), .func = sch->func()};
        c->hash = ir::structuralHash(c->func);
      }
      m_measuredHashes.insert(c->hash);
      if (!lower(*c)) continue;
      if (r.ok()) {
        m_measured.push_back({*c, r.medianSeconds()});
        if (c->sketch >= 0) {
          double& best = m_familyBest[familyIndex(*c)];
          best = std::max(best, r.throughput());
        }
        if (r.verified && r.medianSeconds() < m_bestSeconds) {
          m_bestSeconds = r.medianSeconds();
          m_result.best = r;
          setRates(*m_result.best); // a log older than its "gbps"
        }
      }
      labels.push_back(r.throughput());
      cands.push_back(std::move(*c));
    }
    if (cands.empty()) return;
    std::vector<const codegen::LoweredFunc*> ptrs;
    for (const auto& c : cands)
      ptrs.push_back(c.lowered.get());
    m_model.update(ptrs, labels);
    m_modelUpdated = true;
  }

  const TuneTask& m_task;
  Measurer& m_measurer;
  CostModel& m_model;
  RecordWriter* m_writer;
  const TuneOptions& m_options;
  const std::function<void(const TuneProgress&)>& m_onProgress;
  std::stop_token m_stop;
  std::mt19937_64 m_rng;
  PriorModel m_prior;
  SpaceOptions m_space;
  schedule::StatePtr m_original;
  std::vector<Sketch> m_sketches;
  std::string m_workload;
  double m_flops = 0;
  double m_bytes = 0;              ///< compulsory bytes
  double m_familyBest[2] = {0, 0}; ///< best throughput measured per family: TIR, poly
  Clock::time_point m_start;
  std::unordered_set<std::uint64_t> m_measuredHashes;
  std::vector<Measured> m_measured;
  std::map<std::string, std::optional<Candidate>> m_polyCache; ///< by polyKey
  WorkerPool m_pool{static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u))};
  double m_bestSeconds = std::numeric_limits<double>::infinity();
  int m_measuredNow = 0;
  int m_trial = 0;
  int m_stale = 0;
  bool m_exhausted = false;
  bool m_modelUpdated = false;
  std::vector<double> m_predicted, m_actual; ///< scores before measuring, and the results
  TuneResult m_result;
};

} // namespace

Expected<Strategy> parseStrategy(std::string_view name) {
  for (Strategy s : {Strategy::Evolutionary, Strategy::Annealing, Strategy::Poly, Strategy::Mixed, Strategy::Random})
    if (strategyName(s) == name) return s;
  return std::unexpected(Diagnostic::error(
      "tune.bad-strategy",
      fmt::format("unknown search strategy '{}': use evolutionary, annealing, poly, mixed or random", name)));
}

std::string_view strategyName(Strategy strategy) {
  switch (strategy) {
  case Strategy::Evolutionary: return "evolutionary";
  case Strategy::Annealing: return "annealing";
  case Strategy::Poly: return "poly";
  case Strategy::Mixed: return "mixed";
  case Strategy::Random: return "random";
  }
  return "mixed";
}

struct TaskTuner::Impl {
  TuneTask task;
  TuneOptions options;
  std::function<void(const TuneProgress&)> onProgress;
  Search search;
  Impl(TuneTask t, Measurer& measurer, CostModel& model, RecordWriter* writer, const TuneOptions& o,
       std::function<void(const TuneProgress&)> progress, std::stop_token stop)
      : task(std::move(t)), options(o), onProgress(std::move(progress)),
        search(task, measurer, model, writer, options, onProgress, std::move(stop)) {}
};

TaskTuner::TaskTuner(TuneTask task, Measurer& measurer, CostModel& model, RecordWriter* writer,
                     const TuneOptions& options, std::function<void(const TuneProgress&)> onProgress,
                     std::stop_token stop)
    : m_impl(std::make_unique<Impl>(std::move(task), measurer, model, writer, options, std::move(onProgress),
                                    std::move(stop))) {}
TaskTuner::~TaskTuner() = default;
double polyShare(double tirBest, double polyBest) {
  if (!(tirBest > 0) || !(polyBest > 0)) return 0.5;
  const double share = polyBest * polyBest / (polyBest * polyBest + tirBest * tirBest);
  return std::clamp(share, 0.1, 0.9);
}

Expected<void> TaskTuner::begin(const std::vector<Record>& previous) { return m_impl->search.begin(previous); }
int TaskTuner::round(int want) { return m_impl->search.round(want); }
bool TaskTuner::exhausted() const { return m_impl->search.exhausted(); }
bool TaskTuner::stopping() const { return m_impl->search.stopping(); }
int TaskTuner::measured() const { return m_impl->search.measured(); }
double TaskTuner::bestSeconds() const { return m_impl->search.bestSeconds(); }
const TuneResult& TaskTuner::result() const { return m_impl->search.result(); }
const TuneTask& TaskTuner::task() const { return m_impl->task; }

Expected<TuneResult> tune(const TuneTask& task, Measurer& measurer, CostModel& model,
                          const std::vector<Record>& previous, RecordWriter* writer, const TuneOptions& options,
                          const std::function<void(const TuneProgress&)>& onProgress, std::stop_token stop) {
  Search search(task, measurer, model, writer, options, onProgress, std::move(stop));
  return search.run(previous);
}

std::string curveCsv(const std::vector<CurvePoint>& curve) {
  std::string out = "trial,seconds,best_gflops,best_gbps\n";
  for (const auto& p : curve)
    out += fmt::format("{},{:.3f},{:.3f},{:.3f}\n", p.trial, p.seconds, p.bestGflops, p.bestGbps);
  return out;
}

} // namespace loopscape::tune
