#include "views/code_highlighter.h"

#include "views/theme.h"

namespace loopscape::views {

namespace {

constexpr int kInBlockComment = 1; ///< block state: a C /* comment continues on the next line

/// Any of the space-separated words of `list`, as a whole word.
QRegularExpression words(const char* list) {
  const QStringList w = QString::fromLatin1(list).split(u' ', Qt::SkipEmptyParts);
  return QRegularExpression(QStringLiteral("\\b(%1)\\b").arg(w.join(u'|')));
}

} // namespace

CodeHighlighter::Language CodeHighlighter::languageOf(const QString& format) {
  const QString f = format.toLower();
  if (f == QLatin1String("c") || f == QLatin1String("cuda")) return Language::C;
  if (f == QLatin1String("llvm")) return Language::LlvmIr;
  if (f == QLatin1String("asm") || f == QLatin1String("ptx")) return Language::Asm;
  return Language::Plain;
}

CodeHighlighter::CodeHighlighter(QTextDocument* document, Language language)
    : RuleHighlighter(document), m_language(language) {
  buildRules();
}

void CodeHighlighter::setLanguage(Language language) {
  if (language == m_language) return;
  m_language = language;
  rebuild();
}

void CodeHighlighter::buildRules() {
  m_rules.clear();
  const CodeColors colors = codeColors(m_dark);
  auto fmt = [](const QColor& c, bool bold = false) {
    QTextCharFormat f;
    f.setForeground(c);
    if (bold) f.setFontWeight(QFont::Bold);
    return f;
  };
  const QTextCharFormat keyword = fmt(colors.keyword, true);
  const QTextCharFormat type = fmt(colors.type);
  const QTextCharFormat number = fmt(colors.number);
  const QTextCharFormat preprocessor = fmt(colors.preprocessor);
  const QTextCharFormat function = fmt(colors.function);
  const QTextCharFormat variable = fmt(colors.variable);
  const QTextCharFormat label = fmt(colors.label, true);
  m_string = fmt(colors.string);
  m_comment = fmt(colors.comment);
  m_comment.setFontItalic(true);
  const QRegularExpression decimal(
      QStringLiteral("(?<![A-Za-z_0-9.])(0x[0-9A-Fa-f]+|[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?)[fFuUlL]*\\b"));

  switch (m_language) {
  case Language::Plain: return;
  case Language::C:
    // Later rules win: a call's name first, then the keywords (`for (`, `sizeof (`).
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b[A-Za-z_][A-Za-z0-9_]*(?=\\s*\\()")), function});
    m_rules.push_back(
        {words("for if else while do return static inline void const restrict typedef sizeof struct union "
               "enum break continue goto switch case default extern volatile __attribute__ __restrict "
               "true false NULL "),
         keyword});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral("\\b(float|double|char|int|long|short|unsigned|signed|bool|"
                                           "_Float16|size_t|u?int(8|16|32|64)_t|ls_[fi][0-9]+x[0-9]+)\\b")),
         type});
    m_rules.push_back({decimal, number});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*#.*$")), preprocessor});
    return;
  case Language::LlvmIr:
    m_rules.push_back(
        {words("define declare ret br switch call tail musttail load store getelementptr inbounds alloca "
               "phi select icmp fcmp and or xor shl lshr ashr add sub mul fadd fsub fmul fdiv fneg sdiv "
               "udiv srem urem frem zext sext trunc fptrunc fpext sitofp uitofp fptosi fptoui bitcast "
               "ptrtoint inttoptr extractelement insertelement shufflevector unreachable to nsw nuw exact "
               "disjoint nneg fast reassoc contract nnan ninf nsz arcp afn align noalias nocapture "
               "readonly writeonly local_unnamed_addr unnamed_addr dso_local private internal global "
               "constant attributes source_filename target datalayout triple x eq ne ugt uge ult ule sgt "
               "sge slt sle oeq one ogt oge olt ole ord uno ueq une true false null undef poison "
               "zeroinitializer "),
         keyword});
    m_rules.push_back({QRegularExpression(QStringLiteral(
                           "\\b(i[0-9]+|half|bfloat|float|double|fp128|x86_fp80|void|ptr|label|metadata)\\b")),
                       type});
    m_rules.push_back({decimal, number});
    m_rules.push_back({QRegularExpression(QStringLiteral("%[-A-Za-z0-9_.$]+")), variable});
    m_rules.push_back({QRegularExpression(QStringLiteral("@[-A-Za-z0-9_.$]+")), function});
    m_rules.push_back({QRegularExpression(QStringLiteral("(![-A-Za-z0-9_.$]+|#[0-9]+)")), preprocessor});
    m_rules.push_back({QRegularExpression(QStringLiteral("^[-A-Za-z0-9_.$]+:")), label});
    return;
  case Language::Asm:
    m_rules.push_back({decimal, number});
    m_rules.push_back({QRegularExpression(QStringLiteral("\\$-?(0x[0-9A-Fa-f]+|[0-9]+)")), number});
    m_rules.push_back({QRegularExpression(QStringLiteral("%[a-z][a-z0-9]*")), variable});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s+[a-z][a-z0-9]*\\b")), keyword});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*\\.[A-Za-z_][A-Za-z0-9_.]*")), preprocessor});
    m_rules.push_back({QRegularExpression(QStringLiteral("^[A-Za-z0-9_.$]+:")), label});
    return;
  }
}

void CodeHighlighter::highlightBlock(const QString& text) {
  setCurrentBlockState(-1);
  if (m_language == Language::Plain) return;
  applyRules(text);
  highlightStringsAndComments(text);
}

void CodeHighlighter::highlightStringsAndComments(const QString& text) {
  const int n = static_cast<int>(text.size());
  int i = 0;
  // A block comment from `from` (its text searched for the end from `search`).
  auto closeBlockComment = [&](int from, int search) {
    const int end = static_cast<int>(text.indexOf(QStringLiteral("*/"), search));
    if (end < 0) {
      setFormat(from, n - from, m_comment);
      setCurrentBlockState(kInBlockComment);
      return n;
    }
    setFormat(from, end + 2 - from, m_comment);
    return end + 2;
  };
  if (m_language == Language::C && previousBlockState() == kInBlockComment) i = closeBlockComment(0, 0);
  int stringStart = -1;
  for (; i < n; ++i) {
    const QChar c = text[i];
    if (stringStart >= 0) {
      if (c == u'\\') {
        ++i;
        continue;
      }
      if (c == u'"') {
        setFormat(stringStart, i - stringStart + 1, m_string);
        stringStart = -1;
      }
      continue;
    }
    if (c == u'"') {
      stringStart = i;
      continue;
    }
    const QChar next = i + 1 < n ? text[i + 1] : QChar();
    const bool lineComment = m_language == Language::C        ? c == u'/' && next == u'/'
                             : m_language == Language::LlvmIr ? c == u';'
                                                              : c == u'#' || (c == u'/' && next == u'/');
    if (lineComment) {
      setFormat(i, n - i, m_comment);
      return;
    }
    if (m_language == Language::C && c == u'/' && next == u'*') i = closeBlockComment(i, i + 2) - 1;
  }
  if (stringStart >= 0) setFormat(stringStart, n - stringStart, m_string);
}

} // namespace loopscape::views
