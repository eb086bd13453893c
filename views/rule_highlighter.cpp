#include "views/rule_highlighter.h"

namespace loopscape::views {

void RuleHighlighter::setDark(bool dark) {
  if (dark == m_dark) return;
  m_dark = dark;
  rebuild();
}

void RuleHighlighter::rebuild() {
  buildRules();
  rehighlight();
}

void RuleHighlighter::applyRules(const QString& text) {
  for (const Rule& rule : m_rules) {
    auto it = rule.pattern.globalMatch(text);
    while (it.hasNext()) {
      const QRegularExpressionMatch m = it.next();
      setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), rule.format);
    }
  }
}

} // namespace loopscape::views
