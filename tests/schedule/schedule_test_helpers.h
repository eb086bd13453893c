// Shared helpers of the schedule tests: build a program from .te source, compare the
// interpreter's results of two programs on the same seeded inputs, and compare printed
// programs with golden files (LS_UPDATE_GOLDEN=1 rewrites them instead).
#pragma once

#include "core/ir/prim_func.h"
#include "core/schedule/schedule.h"

#include <QString>
#include <QStringList>

#include <string>

namespace loopscape::testing {

/// Parses .te source; the test fails (qFatal) on a parse error.
ir::PrimFunc parseProgram(const std::string& source);

/// Runs `a` and `b` on the same seeded random inputs (params not written by any block are
/// inputs) with `sizes` for symbolic shapes; empty string when every output is equal
/// (bit-exact), else a description of the first difference.
std::string compareResults(const ir::PrimFunc& a, const ir::PrimFunc& b, const std::map<std::string, std::int64_t>& sizes = {});

/// Compares `text` with tests/schedule/golden/<name>.py; with LS_UPDATE_GOLDEN=1 writes it.
/// Returns an empty string on success, else a message (use with QVERIFY2).
QString checkGolden(const QString& name, const std::string& text);

/// Names of the blocks/loops/buffers a diagnostic refers to, in order.
QStringList refNames(const Diagnostic& d);

/// Applies `kind` and checks it is refused with `code` naming exactly `refs`, and that
/// the refusal left the program and the trace as they were (QtTest checks).
void expectRefused(schedule::Schedule& sch, const char* kind, std::vector<schedule::TraceValue> inputs,
                   std::vector<schedule::TraceValue> attrs, const QString& code, const QStringList& refs);

/// A small matmul (64x48 by 48x32, loops i, j, k), for tests that need any program.
extern const char* const kSmallMatmul;
/// A producer/consumer chain: B = A * 2 (intermediate), C = B + 1 (output), 64x64.
extern const char* const kTwoStage;

} // namespace loopscape::testing
