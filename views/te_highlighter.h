// Syntax highlighting for the Python-like texts of the workbench: .te programs, the
// TVMScript the TensorIR view prints, and schedule traces in TVM Python. One highlighter
// with a language mode: keywords, builtins (te / T. / sch. names), numbers, strings and
// comments. Colours come from the palette's lightness, so they read in both themes.
#pragma once

#include "views/rule_highlighter.h"

namespace loopscape::views {

class TeHighlighter : public RuleHighlighter {
  Q_OBJECT
public:
  enum class Language { Te, TvmScript, TracePython };
  TeHighlighter(QTextDocument* document, Language language);
  /// Switches the language's rules (builtins, decorators) and re-highlights.
  void setLanguage(Language language);
  Language language() const { return m_language; }

protected:
  void highlightBlock(const QString& text) override;

private:
  void buildRules() override;
  Language m_language;
  QTextCharFormat m_string, m_comment;
};

} // namespace loopscape::views
