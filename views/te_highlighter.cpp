#include "views/te_highlighter.h"

namespace loopscape::views {

TeHighlighter::TeHighlighter(QTextDocument* document, Language language)
    : RuleHighlighter(document), m_language(language) {
  buildRules();
}

void TeHighlighter::setLanguage(Language language) {
  if (language == m_language) return;
  m_language = language;
  rebuild();
}

void TeHighlighter::buildRules() {
  m_rules.clear();
  auto fmt = [&](const char* light, const char* dark, bool bold = false) {
    QTextCharFormat f;
    f.setForeground(QColor(m_dark ? dark : light));
    if (bold) f.setFontWeight(QFont::Bold);
    return f;
  };
  const QTextCharFormat keyword = fmt("#0033b3", "#cc7832", true);
  const QTextCharFormat builtin = fmt("#7a3e9d", "#b294bb");
  const QTextCharFormat number = fmt("#1750eb", "#6897bb");
  const QTextCharFormat decorator = fmt("#9e880d", "#bbb529");
  m_string = fmt("#067d17", "#6a8759");
  m_comment = fmt("#8c8c8c", "#808080");
  m_comment.setFontItalic(true);

  static const char* kKeywords[] = {"def", "return", "lambda", "for", "in", "if", "else", "elif", "with",
                                    "from", "import", "as", "and", "or", "not", "None", "True", "False",
                                    "while", "class", "pass", "is"};
  QStringList kw;
  for (const char* k : kKeywords) kw << QString::fromLatin1(k);
  m_rules.push_back({QRegularExpression(QStringLiteral("\\b(%1)\\b").arg(kw.join(u'|'))), keyword});

  switch (m_language) {
  case Language::Te: {
    static const char* kBuiltins[] = {"placeholder", "compute", "reduce_axis", "sum", "max", "min", "var",
                                      "size_var", "if_then_else", "select", "exp", "log", "sqrt", "rsqrt",
                                      "tanh", "sigmoid", "abs", "float32", "float16", "int32", "int64",
                                      "const", "all", "any", "floordiv", "floormod", "te", "tir", "tvm",
                                      "range", "len", "float", "int"};
    QStringList b;
    for (const char* k : kBuiltins) b << QString::fromLatin1(k);
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b(%1)\\b").arg(b.join(u'|'))), builtin});
    break;
  }
  case Language::TvmScript:
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b(T|I|R)\\.[A-Za-z_][A-Za-z0-9_.]*")), builtin});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*@\\S+")), decorator});
    break;
  case Language::TracePython:
    m_rules.push_back({QRegularExpression(QStringLiteral("\\bsch\\.[A-Za-z_][A-Za-z0-9_]*")), builtin});
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b[blv][0-9]+\\b")), decorator});
    break;
  }
  m_rules.push_back(
      {QRegularExpression(QStringLiteral("(?<![A-Za-z_0-9.])[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?\\b")), number});
}

void TeHighlighter::highlightBlock(const QString& text) {
  applyRules(text);
  // Strings and comments last, scanning left to right so '#' inside a string is text.
  QChar quote;
  int start = -1;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (start >= 0) {
      if (c == u'\\') {
        ++i;
        continue;
      }
      if (c == quote) {
        setFormat(start, i - start + 1, m_string);
        start = -1;
      }
      continue;
    }
    if (c == u'"' || c == u'\'') {
      quote = c;
      start = i;
    } else if (c == u'#') {
      setFormat(i, static_cast<int>(text.size()) - i, m_comment);
      return;
    }
  }
  if (start >= 0) setFormat(start, static_cast<int>(text.size()) - start, m_string);
}

} // namespace loopscape::views
