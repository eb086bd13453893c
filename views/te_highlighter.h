// Syntax highlighting for the Python-like texts of the workbench: .te programs, the
// TVMScript the TensorIR view prints, and schedule traces in TVM Python. One highlighter
// with a language mode: keywords, builtins (te / T. / sch. names), numbers, strings and
// comments. Colours come from the palette's lightness, so they read in both themes.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace loopscape::views {

class TeHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
public:
  enum class Language { Te, TvmScript, TracePython };
  TeHighlighter(QTextDocument* document, Language language);
  /// Re-derives the colours for a dark or light background and re-highlights.
  void setDark(bool dark);
  /// Switches the language's rules (builtins, decorators) and re-highlights.
  void setLanguage(Language language);
  Language language() const { return m_language; }

protected:
  void highlightBlock(const QString& text) override;

private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  void buildRules();
  Language m_language;
  bool m_dark = false;
  std::vector<Rule> m_rules;
  QTextCharFormat m_string, m_comment;
};

} // namespace loopscape::views
