// The common part of the workbench's syntax highlighters (te_highlighter.h for the
// Python-like texts, code_highlighter.h for generated code): a list of regular-expression
// rules, each with its character format, rebuilt for a light or a dark background.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

namespace loopscape::views {

class RuleHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
public:
  explicit RuleHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}
  /// Re-derives the colours for a dark or light background and re-highlights.
  void setDark(bool dark);

protected:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  /// Fills m_rules (and the subclass's own formats) for the current language and theme.
  virtual void buildRules() = 0;
  /// buildRules, then highlights the document again.
  void rebuild();
  /// Applies every rule to `text`, in order (a later rule's format wins).
  void applyRules(const QString& text);
  bool m_dark = false;
  std::vector<Rule> m_rules;
};

} // namespace loopscape::views
