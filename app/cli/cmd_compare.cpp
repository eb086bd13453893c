// `compare FILE --a TRACE_A --b TRACE_B [--target T] [--run] [--code] [--html OUT]`: two schedules
// of one program side by side. Each side is a trace file (.py or .json, as `print
// --trace` takes it), `poly_auto` (the isl scheduler with default options on the
// original program), `none` (the original program) or nothing (the session's trace for a
// .lsproj, else the original program); a trace file given for a session applies to the
// session's program instead of its trace. Prints the structural diff of the two programs
// (core/ir/program_diff.h), the bands of both schedule trees paired (same member loops,
// then same statements), every loop's parallelism and the dependences it carries, and with
// --run both programs built by the target plugin, verified and timed as `run` does
// (run_measure.h) with the ratio B/A, and with --code a unified diff of the code the
// target generates for each side (--format, default C). --html OUT also writes all of it
// as one self-contained HTML file (inline CSS and SVG). The trees, loops, code and line
// diff are computed by compare_report.h, shared with the workbench's Compare window.
#include "cli_options.h"
#include "cli_support.h"
#include "commands.h"
#include "run_measure.h"

#include "app/cli/compare_report.h"

#include "core/ir/printer.h"
#include "core/ir/program_diff.h"
#include "core/ir/xml_escape.h"
#include "core/poly/checked_schedule.h"
#include "core/poly/poly_schedule.h"
#include "core/poly/report.h"
#include "core/poly/tree_description.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>

namespace loopscape::cli {

namespace {

using compare::Band;
using compare::bandText;
using compare::join;

struct CompareOptions {
  std::string file;
  std::string a, b;
  std::string target = "cpu-c";
  bool run = false;
  bool code = false;
  std::string format = "c";
  std::string html;
  std::vector<std::string> shapes;
  std::uint64_t seed = 0;
  int repeat = 5;
  int threads = 0;
  double timeout = 10;
  bool noPeak = false;
};

struct Measured {
  double medianMs = 0;
  double gflops = 0;
  std::optional<double> percentOfPeak;
  std::string verified; ///< "yes", "NO", or "-"
};

/// One side of the comparison.
struct Side {
  std::string label; ///< "A", "B"
  std::string name;  ///< what the schedule is: the trace path, poly_auto, original program
  ir::PrimFunc func;
  std::vector<compare::Band> bands;
  std::string treeError; ///< why there are no bands ("" : none)
  std::vector<compare::LoopRow> loops;
  std::string depsSummary; ///< "5 dependences (RAW 2, WAR 1, WAW 2)" or why not
  std::optional<Measured> measured;
  std::string code; ///< --code: the generated source, or why there is none
  bool codeOk = false;
};

struct Report {
  std::string file;
  Side a, b;
  ir::ProgramDiff diff;
  std::vector<compare::BandPair> pairs;
  std::string target;
  std::string measureMode;
  ir::PrintOptions print; ///< how both programs print (the diff's lines are in this spelling)
  bool code = false;      ///< --code: both sides' generated code (Side::code) and their diff
  std::string codeFormat;
};

// ---- the two programs ----------------------------------------------------------------

/// The program of one side; nullopt with `exitCode` set (the diagnostic printed).
std::optional<ir::PrimFunc> scheduleOf(const LoadedProgram& program, const std::string& spec, std::string& name,
                                       int& exitCode) {
  if (spec == "none" || (spec.empty() && !hasTrace(program, spec))) {
    name = "original program";
    return program.func;
  }
  if (spec == poly::kPolyAutoName) {
    name = poly::kPolyAutoName;
    schedule::Schedule sch = poly::makeSchedule(program.func);
    if (auto r = poly::polyAuto(sch, poly::PolyAutoOptions{}); !r) {
      printDiagnostic(r.error());
      exitCode = r.error().code.starts_with("schedule.poly_auto.illegal") ? kExitIllegalSchedule : kExitBadInput;
      return std::nullopt;
    }
    return sch.func();
  }
  LoadedProgram base = program;
  if (!spec.empty()) base.sessionTrace.clear(); // the trace file applies to the session's program
  name = traceName(base, spec);
  auto applied = applyTraceFile(base, spec, exitCode);
  if (!applied) return std::nullopt;
  return applied->func();
}

// ---- schedule trees, dependences, code (compare_report.h) ------------------------------

void describeTree(Side& side) {
  auto bands = compare::scheduleBands(side.func);
  if (!bands) {
    side.treeError = bands.error().message;
    return;
  }
  side.bands = std::move(*bands);
}

void describeDependences(Side& side) {
  compare::LoopFacts facts = compare::loopFacts(side.func);
  side.depsSummary = std::move(facts.summary);
  side.loops = std::move(facts.loops);
}

// ---- measurements --------------------------------------------------------------------

int measure(const CompareOptions& opt, const LoadedProgram& program, Report& report) {
  auto sizes = parseShapes(program.func, opt.shapes);
  if (!sizes) {
    printDiagnostic(sizes.error());
    return kExitBadInput;
  }
  const codegen::Pipeline pipeline;
  codegen::BuildOptions buildOptions;
  buildOptions.threads = opt.threads;
  int exitCode = kExitOk;
  auto builtA = buildKernel(pipeline, opt.target, report.a.func, buildOptions, exitCode);
  if (!builtA) return exitCode;
  auto builtB = buildKernel(pipeline, opt.target, report.b.func, buildOptions, exitCode);
  if (!builtB) return exitCode;
  for (const auto* built : {&*builtA, &*builtB})
    if (auto sizeArgs = codegen::sizeArguments(built->kernel.func, *sizes); !sizeArgs) {
      printDiagnostic(sizeArgs.error());
      return kExitBadInput;
    }
  auto args = loadArguments(program.func, *sizes, {}, opt.seed);
  if (!args) return kExitBadInput;
  codegen::RunOptions runOptions;
  runOptions.timeoutSeconds = opt.timeout;
  report.measureMode = fmt::format("isolated worker, {} repeats", opt.repeat);
  bool allVerified = true;
  for (auto [side, built] : {std::pair{&report.a, &*builtA}, std::pair{&report.b, &*builtB}}) {
    auto verified = pipeline.verify(built->kernel, program.func, *sizes, *args, runOptions, codegen::VerifyOptions{});
    if (!verified) return reportInterpreterFailure(program, verified.error());
    auto timed = timeKernel(pipeline, built->kernel, program.func, side->func, *sizes, *args, runOptions,
                            codegen::TimingOptions{1, opt.repeat, 0, 100, false}, opt.threads, !opt.noPeak, exitCode);
    if (!timed) return exitCode;
    Measured m;
    m.medianMs = timed->profile.timing.median() * 1e3;
    m.gflops = timed->profile.gflops();
    if (timed->profile.peak) m.percentOfPeak = timed->profile.percentOfPeak();
    m.verified = verified->passed() ? "yes" : "NO";
    allVerified = allVerified && verified->passed();
    side->measured = m;
  }
  return allVerified ? kExitOk : kExitInternal;
}

// ---- text ----------------------------------------------------------------------------

std::string renderText(const Report& r) {
  std::string out = fmt::format("compare {}\n  A: {}\n  B: {}\n", r.file, r.a.name, r.b.name);
  out += "\nstructural diff (- only in A, + only in B, ~ changed):\n";
  out += ir::renderProgramDiff(r.diff);
  out += "\nschedule trees, bands paired by member loops and statements:\n";
  for (const Side* s : {&r.a, &r.b})
    if (!s->treeError.empty()) out += fmt::format("  {}: no schedule tree: {}\n", s->label, s->treeError);
  for (const auto& p : r.pairs) {
    if (p.a && p.b) {
      std::string why = p.sharedMembers.empty() ? "no shared loop" : "shared loops " + join(p.sharedMembers);
      if (p.sameStatements) why += ", same statements";
      out += fmt::format("  pair ({})\n    A {}\n    B {}\n", why, bandText(*p.a), bandText(*p.b));
    } else {
      out += fmt::format("  only in {}: {}\n", p.a ? "A" : "B", bandText(p.a ? *p.a : *p.b));
    }
  }
  out += "\ndependences and parallelism per loop:\n";
  for (const Side* s : {&r.a, &r.b}) {
    out += fmt::format("  {}: {}\n", s->label, s->depsSummary);
    if (!s->loops.empty()) out += fmt::format("    {:<18}{:<12}{}\n", "loop", "kind", "dependences");
    for (const auto& l : s->loops) {
      const std::string name = std::string(static_cast<std::size_t>(2 * l.depth), ' ') + l.name;
      out += fmt::format("    {:<18}{:<12}{}{}\n", name, l.kind,
                         l.parallel ? "none carried: parallel" : "carries " + l.carries,
                         l.marked ? " (marked " + l.kind + " but carries dependences)" : "");
    }
  }
  if (r.code) {
    out += fmt::format("\ngenerated code ({}, {}; - only in A, + only in B):\n", r.target, r.codeFormat);
    for (const Side* s : {&r.a, &r.b})
      if (!s->codeOk) out += fmt::format("  {}: no code: {}\n", s->label, s->code);
    if (r.a.codeOk && r.b.codeOk) out += compare::renderUnifiedDiff(r.a.code, r.b.code, r.a.name, r.b.name);
  }
  if (r.a.measured && r.b.measured) {
    out += fmt::format("\nmeasurements ({}, {}):\n", r.target, r.measureMode);
    out += "       median ms     GFLOP/s   % of peak   verified\n";
    for (const Side* s : {&r.a, &r.b}) {
      const Measured& m = *s->measured;
      out += fmt::format("  {}  {:>10.4f}  {:>10.2f}  {:>10}   {}\n", s->label, m.medianMs, m.gflops,
                         m.percentOfPeak ? fmt::format("{:.1f}", *m.percentOfPeak) : "-", m.verified);
    }
    const double ratio = r.a.measured->medianMs > 0 ? r.b.measured->medianMs / r.a.measured->medianMs : 0;
    out += fmt::format("  B/A median time: {:.3f} ({} is faster)\n", ratio, ratio > 1 ? "A" : "B");
  }
  return out;
}

// ---- HTML ----------------------------------------------------------------------------

/// The printed program, one span per line; lines of the diff's entries get the entry's
/// class (del, add, chg) and its description as a tooltip.
std::string programHtml(const Side& side, const ir::ProgramDiff& diff, const ir::PrintOptions& print, bool first) {
  std::map<int, std::pair<std::string, std::string>> marks; // line -> class, title
  for (const auto& e : diff.entries) {
    const ir::DiffLocation& loc = first ? e.a : e.b;
    if (loc.line == 0) continue;
    const char* cls = e.kind == ir::DiffKind::Removed ? "del" : e.kind == ir::DiffKind::Added ? "add" : "chg";
    auto& mark = marks[loc.line];
    if (mark.first.empty()) mark.first = cls;
    std::string title = std::string(ir::diffKindSign(e.kind)) + " " +
                        (e.item == ir::DiffItem::Loop ? "loop " + e.loop : "block " + e.block);
    if (!e.changes.empty()) title += ": " + join(e.changes, "; ");
    mark.second += (mark.second.empty() ? "" : "\n") + title;
  }
  const std::string text = ir::printPrimFunc(side.func, print);
  std::string out;
  int line = 1;
  for (std::size_t start = 0; start < text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    auto it = marks.find(line);
    out += it == marks.end()
               ? "<span class=\"ln\">"
               : fmt::format("<span class=\"ln {}\" title=\"{}\">", it->second.first, ir::xmlEscape(it->second.second));
    out += fmt::format("<i>{:>3}</i> {}</span>\n", line, ir::xmlEscape(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

/// Both sides' generated code side by side, the lines only in A marked del, only in B add.
std::string codeHtml(const Report& r) {
  std::string h =
      fmt::format("<h2>Generated code ({}, {})</h2>\n", ir::xmlEscape(r.target), ir::xmlEscape(r.codeFormat));
  if (!r.a.codeOk || !r.b.codeOk) {
    for (const Side* s : {&r.a, &r.b})
      if (!s->codeOk) h += fmt::format("<p>{}: no code: <code>{}</code></p>\n", s->label, ir::xmlEscape(s->code));
    return h;
  }
  const auto a = compare::splitLines(r.a.code), b = compare::splitLines(r.b.code);
  std::set<int> removed, added;
  for (const auto& e : compare::diffLines(a, b)) {
    if (e.op == compare::LineOp::Removed) removed.insert(e.a);
    if (e.op == compare::LineOp::Added) added.insert(e.b);
  }
  h +=
      fmt::format("<p>{} lines only in A, {} only in B.</p>\n<div class=\"programs\">\n", removed.size(), added.size());
  for (const Side* s : {&r.a, &r.b}) {
    const auto& lines = s == &r.a ? a : b;
    const auto& marked = s == &r.a ? removed : added;
    h += fmt::format("<div><h3>{}: {}</h3><pre class=\"code\">", s->label, ir::xmlEscape(s->name));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const int line = static_cast<int>(i + 1);
      h += fmt::format("<span class=\"ln{}\"><i>{:>3}</i> {}</span>\n",
                       marked.contains(line) ? (s == &r.a ? " del" : " add") : "", line, ir::xmlEscape(lines[i]));
    }
    h += "</pre></div>\n";
  }
  return h + "</div>\n";
}

std::string bandHtml(const std::optional<Band>& band) {
  if (!band) return "<td class=\"none\">&mdash;</td>";
  return fmt::format("<td><code>{}</code></td>", ir::xmlEscape(bandText(*band)));
}

std::string renderHtml(const Report& r) {
  std::string h = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Loopscape compare</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}
.programs{display:grid;grid-template-columns:1fr 1fr;gap:1em}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow-x:auto;font-size:12px;line-height:1.35}
.ln{display:block;white-space:pre}.ln i{color:#999;font-style:normal}
.del{background:#fdd}.add{background:#dfd}.chg{background:#ffefc0}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eee}.num{text-align:right}.none{color:#999}.warn{color:#b00}
.sign-del{color:#b00;font-weight:bold}.sign-add{color:#070;font-weight:bold}.sign-chg{color:#a60;font-weight:bold}
</style></head><body>
)";
  h += fmt::format("<h1>Loopscape compare: {}</h1>\n<p>A: <code>{}</code><br>B: <code>{}</code></p>\n",
                   ir::xmlEscape(r.file), ir::xmlEscape(r.a.name), ir::xmlEscape(r.b.name));
  h += "<h2>Programs</h2>\n<div class=\"programs\">\n";
  for (const Side* s : {&r.a, &r.b})
    h += fmt::format("<div><h3>{}: {}</h3><pre>{}</pre></div>\n", s->label, ir::xmlEscape(s->name),
                     programHtml(*s, r.diff, r.print, s == &r.a));
  h += "</div>\n<h2>Structural diff</h2>\n";
  if (r.diff.empty())
    h += "<p>No structural difference.</p>\n";
  else {
    h += "<table><tr><th></th><th>item</th><th>A line</th><th>B line</th><th>what</th></tr>\n";
    for (const auto& e : r.diff.entries) {
      const char* cls = e.kind == ir::DiffKind::Removed ? "del" : e.kind == ir::DiffKind::Added ? "add" : "chg";
      const std::string item =
          e.item == ir::DiffItem::Loop ? "loop " + e.loop + " (block " + e.block + ")" : "block " + e.block;
      std::vector<std::string> what; // escaped, one line per change
      if (e.changes.empty()) what.push_back(ir::xmlEscape(e.kind == ir::DiffKind::Removed ? e.a.text : e.b.text));
      for (const auto& c : e.changes)
        what.push_back(ir::xmlEscape(c));
      h += fmt::format("<tr class=\"{0}\"><td class=\"sign-{0}\">{1}</td><td>{2}</td><td>{3}</td><td>{4}</td>"
                       "<td><code>{5}</code></td></tr>\n",
                       cls, ir::diffKindSign(e.kind), ir::xmlEscape(item), e.a.line ? std::to_string(e.a.line) : "",
                       e.b.line ? std::to_string(e.b.line) : "", join(what, "<br>"));
    }
    h += "</table>\n";
  }
  h += "<h2>Schedule trees: bands paired</h2>\n<table><tr><th>A</th><th>B</th><th>why</th></tr>\n";
  for (const auto& p : r.pairs) {
    std::string why = p.a && p.b
                          ? (p.sharedMembers.empty() ? "no shared loop" : "shared loops " + join(p.sharedMembers))
                          : std::string("only in ") + (p.a ? "A" : "B");
    if (p.a && p.b && p.sameStatements) why += ", same statements";
    h += "<tr>" + bandHtml(p.a) + bandHtml(p.b) + "<td>" + ir::xmlEscape(why) + "</td></tr>\n";
  }
  h += "</table>\n";
  for (const Side* s : {&r.a, &r.b})
    if (!s->treeError.empty())
      h += fmt::format("<p>{}: no schedule tree: {}</p>\n", s->label, ir::xmlEscape(s->treeError));
  h += "<h2>Dependences and parallelism per loop</h2>\n<div class=\"programs\">\n";
  for (const Side* s : {&r.a, &r.b}) {
    h += fmt::format("<div><h3>{}</h3><p>{}</p><table><tr><th>loop</th><th>depth</th><th>kind</th>"
                     "<th>parallel</th><th>carries</th></tr>\n",
                     s->label, ir::xmlEscape(s->depsSummary));
    for (const auto& l : s->loops)
      h += fmt::format("<tr{}><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       l.marked ? " class=\"warn\"" : "", ir::xmlEscape(l.name), l.depth, ir::xmlEscape(l.kind),
                       l.parallel ? "yes" : "no", ir::xmlEscape(l.carries));
    h += "</table></div>\n";
  }
  h += "</div>\n";
  if (r.code) h += codeHtml(r);
  if (r.a.measured && r.b.measured) {
    h += fmt::format("<h2>Measurements ({}, {})</h2>\n<table><tr><th></th><th>median ms</th><th>GFLOP/s</th>"
                     "<th>% of peak</th><th>verified</th></tr>\n",
                     ir::xmlEscape(r.target), ir::xmlEscape(r.measureMode));
    for (const Side* s : {&r.a, &r.b}) {
      const Measured& m = *s->measured;
      h += fmt::format("<tr><td>{}</td><td class=\"num\">{:.4f}</td><td class=\"num\">{:.2f}</td>"
                       "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                       s->label, m.medianMs, m.gflops, m.percentOfPeak ? fmt::format("{:.1f}", *m.percentOfPeak) : "-",
                       m.verified);
    }
    const double ratio = r.a.measured->medianMs > 0 ? r.b.measured->medianMs / r.a.measured->medianMs : 0;
    h += fmt::format("</table>\n<p>B/A median time: {:.3f}</p>\n", ratio);
    // The bar chart: median time of each side, the longer bar the full width.
    const double longest = std::max({r.a.measured->medianMs, r.b.measured->medianMs, 1e-12});
    h += "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"520\" height=\"80\" role=\"img\" "
         "aria-label=\"median time of A and B\">\n";
    int y = 10;
    for (const Side* s : {&r.a, &r.b}) {
      const double width = 380.0 * s->measured->medianMs / longest;
      h += fmt::format("<text x=\"4\" y=\"{}\" font-size=\"13\">{}</text><rect x=\"24\" y=\"{}\" width=\"{:.1f}\" "
                       "height=\"22\" fill=\"{}\"/><text x=\"{:.1f}\" y=\"{}\" font-size=\"12\">{:.4f} ms</text>\n",
                       y + 16, s->label, y, width, s == &r.a ? "#4a78c2" : "#d9822b", 30 + width, y + 16,
                       s->measured->medianMs);
      y += 32;
    }
    h += "</svg>\n";
  }
  h += "</body></html>\n";
  return h;
}

// ---- the command ---------------------------------------------------------------------

int runCompare(const CompareOptions& opt) {
  auto program = loadProgram(opt.file);
  if (!program) return kExitBadInput;
  Report report;
  report.file = opt.file;
  report.target = opt.target;
  report.a.label = "A";
  report.b.label = "B";
  int exitCode = kExitOk;
  auto a = scheduleOf(*program, opt.a, report.a.name, exitCode);
  if (!a) return exitCode;
  auto b = scheduleOf(*program, opt.b, report.b.name, exitCode);
  if (!b) return exitCode;
  report.a.func = std::move(*a);
  report.b.func = std::move(*b);
  report.print = printOptionsFor(*program);
  report.diff = ir::diffPrograms(report.a.func, report.b.func, report.print);
  for (Side* s : {&report.a, &report.b}) {
    describeTree(*s);
    describeDependences(*s);
  }
  report.pairs = compare::pairBands(report.a.bands, report.b.bands);
  report.code = opt.code;
  report.codeFormat = opt.format;
  if (opt.code)
    for (Side* s : {&report.a, &report.b}) {
      auto code = compare::generatedSource(s->func, opt.target, opt.format);
      s->codeOk = code.has_value();
      s->code = code ? std::move(*code) : code.error().message;
      if (!code && (code.error().code == "codegen.unknown-format" || code.error().code == "codegen.unknown-target" ||
                    code.error().code.starts_with("codegen.plugin-"))) {
        printDiagnostic(code.error());
        return kExitBadInput;
      }
    }
  int status = kExitOk;
  if (opt.run) {
    std::fputs("measuring...\n", stderr);
    status = measure(opt, *program, report);
    if (status != kExitOk && !(report.a.measured && report.b.measured)) return status;
  }
  std::fputs(renderText(report).c_str(), stdout);
  if (!opt.html.empty()) {
    std::ofstream out(opt.html, std::ios::binary | std::ios::trunc);
    out << renderHtml(report);
    out.close();
    if (!out) {
      printDiagnostic(Diagnostic::error("cli.write-failed", "cannot write the HTML report to '" + opt.html + "'"));
      return kExitBadInput;
    }
    std::fprintf(stdout, "\nHTML report: %s\n", opt.html.c_str());
  }
  return status;
}

} // namespace

void registerCompare(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("compare", "Compare two schedules of one program: structural diff, paired schedule "
                                            "trees, parallelism per loop, optionally measured (--run) and as HTML");
  auto opt = std::make_shared<CompareOptions>();
  cmd->add_option("FILE", opt->file,
                  "Program file (.te, TVMScript .py) or a workbench session (.lsproj: its program and trace)")
      ->required();
  const char* sideHelp = "a trace (.py TVM script or .json), poly_auto (the isl scheduler, default options), none "
                         "(the original program); default: the session's trace, else the original program";
  cmd->add_option("--a", opt->a, std::string("Schedule A: ") + sideHelp);
  cmd->add_option("--b", opt->b, std::string("Schedule B: ") + sideHelp);
  cmd->add_option("--target", opt->target, "Target plugin of --run and --code (see `targets`)")->capture_default_str();
  cmd->add_flag("--run", opt->run, "Build both with the target, verify and time them (as `run --verify`)");
  cmd->add_flag("--code", opt->code, "Also print a unified diff of the code the target generates for A and B");
  cmd->add_option("--format", opt->format,
                  "With --code: the generated code's format (as `print --format`, e.g. c, "
                  "llvm)")
      ->capture_default_str();
  cmd->add_option("--html", opt->html, "Also write a self-contained HTML report to this file");
  cmd->add_option("--shape", opt->shapes, "With --run: bind a symbolic size, e.g. --shape n=64 (repeatable)");
  cmd->add_option("--seed", opt->seed, "With --run: seed of the random inputs")->capture_default_str();
  cmd->add_option("--repeat", opt->repeat, "With --run: timing repeats")
      ->capture_default_str()
      ->check(numberInRange(1, 1e6, true));
  cmd->add_option("--threads", opt->threads, "With --run: threads of parallel loops (0: all cores)")
      ->capture_default_str()
      ->check(numberInRange(0, 4096, true));
  cmd->add_option("--timeout", opt->timeout, "With --run: time limit of the isolated worker, seconds")
      ->capture_default_str()
      ->check(numberInRange(0.001, 86400));
  cmd->add_flag("--no-peak", opt->noPeak, "With --run: do not measure or show the machine's peak");
  cmd->callback([cmd, opt, &result] {
    for (const char* name : {"--target", "--shape", "--seed", "--repeat", "--threads", "--timeout", "--no-peak"})
      if (!opt->run && !(opt->code && std::string_view(name) == "--target") && cmd->count(name) > 0) {
        printDiagnostic(
            Diagnostic::error("cli.bad-argument", std::string(name) + (std::string_view(name) == "--target"
                                                                           ? " only applies with --run or --code"
                                                                           : " only applies with --run")));
        result.exitCode = kExitBadInput;
        return;
      }
    if (!opt->code && cmd->count("--format") > 0) {
      printDiagnostic(Diagnostic::error("cli.bad-argument", "--format only applies with --code"));
      result.exitCode = kExitBadInput;
      return;
    }
    result.exitCode = runCompare(*opt);
  });
}

} // namespace loopscape::cli
