// Diagnostic: a recoverable failure as a value. It keeps a stable code, the message and
// where it happened (source ranges in a file, blocks/loops of the IR), so that each front
// end renders it late: the CLI as `file:line:col: error: message` with the line and a
// caret, the GUI as highlights. Never flatten a Diagnostic to a string before the edge.
#pragma once

#include "core/ir/counterexample.h"

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loopscape {

/// A 1-based position range in a source file; `length` is in columns on `line`.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  int length = 1;
  bool valid() const { return line > 0; }
};

/// An IR entity a diagnostic is about: a block or a loop, by name, and for a loop whose
/// name is not unique (two blocks may each have a loop `i`) also by identity.
struct IrReference {
  enum class Kind { Block, Loop, Buffer } kind = Kind::Block;
  std::string name;
  /// The IR node (the For) in the program the diagnostic is rendered against; only
  /// compared, never dereferenced. Null: the reference is by name.
  const void* identity = nullptr;
};

enum class Severity { Error, Warning, Note };

/// What a diagnostic is rendered against: the source text it came from (a parse error, a
/// malformed file), or the program a schedule step saw (a refused step: the printed
/// program with the referenced blocks and loops underlined).
enum class DiagnosticSubject : std::uint8_t { Source, Program };

struct Diagnostic {
  std::string code; ///< stable id, e.g. "te.unknown-name", "interp.out-of-bounds"
  std::string message;
  Severity severity = Severity::Error;
  SourceLocation location;             ///< primary location, if any
  std::vector<IrReference> references; ///< blocks/loops/buffers involved
  std::vector<std::string> notes;      ///< extra lines ("did you mean 'k'?")
  DiagnosticSubject subject = DiagnosticSubject::Source;
  /// The broken dependence, when a legality check refused a step (shared: immutable).
  std::shared_ptr<const Counterexample> counterexample;

  static Diagnostic error(std::string code, std::string message, SourceLocation loc = {}) {
    Diagnostic d;
    d.code = std::move(code);
    d.message = std::move(message);
    d.location = std::move(loc);
    return d;
  }
};

template <typename T> using Expected = std::expected<T, Diagnostic>;
using Unexpected = std::unexpected<Diagnostic>;

/// Renders `file:line:col: error: message`, then the source line and a caret under the
/// location when `source` (the whole file text) is given, then `note: ...` lines.
std::string renderDiagnostic(const Diagnostic& d, std::string_view source = {});

/// `text` made safe to echo inside a message: control bytes (NUL, newline, ...), DEL and
/// bytes that are not valid UTF-8 become escapes (`\0`, `\n`, `\x93`), and the result is
/// cut after `maxChars` characters with "…" appended. Use it for every piece of a file's
/// contents (headers, names, keys) that a message quotes.
std::string quoteForMessage(std::string_view text, std::size_t maxChars = 80);

} // namespace loopscape
