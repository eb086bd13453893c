// Syntax highlighting for the code view's generated texts: C (cpu-c's source, CUDA),
// LLVM IR (cpu-llvm) and GNU assembly (both targets' asm). One highlighter with a language
// mode: keywords, types, numbers, strings, comments, preprocessor lines and directives,
// function names, values/registers and labels. Colours come from views/theme.h
// (codeColors), so they read in the light and the dark theme.
#pragma once

#include "views/rule_highlighter.h"

namespace loopscape::views {

class CodeHighlighter : public RuleHighlighter {
  Q_OBJECT
public:
  enum class Language { Plain, C, LlvmIr, Asm };
  /// The language of a target's source format ("c", "cuda" -> C; "llvm" -> LlvmIr;
  /// "asm", "ptx" -> Asm; anything else Plain).
  static Language languageOf(const QString& format);

  CodeHighlighter(QTextDocument* document, Language language = Language::Plain);
  /// Switches the language's rules and re-highlights (nothing when it is the same).
  void setLanguage(Language language);
  Language language() const { return m_language; }

protected:
  void highlightBlock(const QString& text) override;

private:
  void buildRules() override;
  /// Strings and comments, left to right so that a comment mark inside a string is text.
  void highlightStringsAndComments(const QString& text);
  Language m_language;
  QTextCharFormat m_string, m_comment;
};

} // namespace loopscape::views
