// Applying a tuning record, checked once (apply_record.h).
#include "core/tune/apply_record.h"

#include "core/schedule/trace_json.h"

#include <filesystem>
#include <fmt/format.h>

namespace loopscape::tune {

Expected<Record> bestRecordOf(const ir::PrimFunc& func, const std::string& path) {
  auto records = readRecords(path);
  if (!records) return std::unexpected(records.error());
  if (records->empty() && !std::filesystem::exists(path))
    return std::unexpected(Diagnostic::error("file.not-found", fmt::format("'{}': no such tuning log", path)));
  const std::string key = workloadKey(func);
  const Record* best = nullptr;
  for (const auto& r : *records) {
    if (!r.ok() || !(r.workload == key || r.workload.starts_with(key + "["))) continue;
    if (!best || r.medianSeconds() < best->medianSeconds()) best = &r;
  }
  if (!best)
    return std::unexpected(Diagnostic::error(
        "tune.no-record", fmt::format("'{}' has no successful record of this program (workload {}; {} records)", path,
                                      key, records->size())));
  return *best;
}

std::string recordSummary(const Record& record) {
  const Rate rate = record.rate();
  return fmt::format("trial {} ({}), {:.1f} {} on {} with {} thread(s){}", record.trial, record.sketch, rate.value,
                     rate.unit, record.target, record.threads, record.verified ? ", verified" : "");
}

namespace {

Diagnostic note(std::string code, std::string message) {
  Diagnostic d = Diagnostic::error(std::move(code), std::move(message));
  d.severity = Severity::Note;
  return d;
}

} // namespace

Expected<std::vector<Diagnostic>> applyRecord(schedule::Schedule& sch, const Record& record, std::string_view what,
                                              unsigned long maxOperations) {
  const std::string json = schedule::traceToJson(record.trace);
  if (sch.legalityPolicy() == schedule::LegalityPolicy::Unverified) {
    if (auto applied = schedule::applyJsonTrace(sch, json, std::string(what)); !applied)
      return std::unexpected(applied.error());
    return std::vector<Diagnostic>{};
  }
  const schedule::StepVerifier verifier = sch.verifier();
  const schedule::LegalityPolicy policy = sch.legalityPolicy();
  sch.setVerifier({}, schedule::LegalityPolicy::Unverified);
  auto applied = schedule::applyJsonTrace(sch, json, std::string(what));
  // Later steps on the record's program (the workbench's) are checked again.
  sch.setVerifier(verifier, policy);
  if (!applied) return std::unexpected(applied.error());

  auto report = maxOperations == poly::kLegalityMaxOperations
                    ? poly::checkLegality(*sch.originalState(), *sch.state())
                    : poly::checkLegalityUncached(sch.original(), sch.func(), maxOperations);
  if (report && !report->legal)
    return std::unexpected(poly::illegalDiagnostic(*report->counterexample, "tune.record-illegal",
                                                   fmt::format("{}: the record's program", what)));
  std::vector<Diagnostic> notes;
  if (!report) {
    const Diagnostic& e = report.error();
    if (e.code == "poly.non-affine" || e.code == "poly.unsupported")
      notes.push_back(
          note("tune.legality-undecided",
               fmt::format("{}: the record's program was not checked against the dependences: {}", what, e.message)));
    else if (record.verified)
      notes.push_back(note("tune.legality-unchecked",
                           fmt::format("{}: the record's program could not be checked for legality: {}; its output "
                                       "was verified against the reference when it was tuned, so it applies "
                                       "unchecked, as the tuner accepted it",
                                       what, e.message)));
    else
      return std::unexpected(Diagnostic::error(
          "tune.legality-unchecked",
          fmt::format("{}: the record's program could not be checked for legality: {}", what, e.message)));
  }
  return notes;
}

} // namespace loopscape::tune
