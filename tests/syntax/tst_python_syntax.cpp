// The shared Python-subset front end (core/syntax) on its own: tokens with Indent/Dedent
// and exact locations, the parser's tree for every construct (printed as an
// S-expression), operator precedence, node locations, indentation and syntax errors with
// their locations, the Dialect switches, and a TVMScript PrimFunc.
#include "core/syntax/lexer.h"
#include "core/syntax/parser.h"

#include <QtTest>

#include <fmt/format.h>

using namespace loopscape;
using namespace loopscape::syntax;

namespace {

std::string dump(const Node* n);

std::string dumpKids(const Node& n, std::size_t from = 0) {
  std::string out;
  for (std::size_t i = from; i < n.kids.size(); ++i)
    out += " " + dump(n.kids[i].get());
  return out;
}

std::string dump(const Node* n) {
  if (!n) return "_";
  switch (n->kind) {
  case NodeKind::Int:
  case NodeKind::Float:
  case NodeKind::Name:
  case NodeKind::None:
  case NodeKind::True:
  case NodeKind::False: return n->text;
  case NodeKind::Str: return fmt::format("'{}'", n->text);
  case NodeKind::Tuple: return "(tuple" + dumpKids(*n) + ")";
  case NodeKind::List: return "(list" + dumpKids(*n) + ")";
  case NodeKind::Dict: return "(dict" + dumpKids(*n) + ")";
  case NodeKind::Attribute: return fmt::format("(. {} {})", dump(n->kids[0].get()), n->text);
  case NodeKind::Subscript: return "(sub" + dumpKids(*n) + ")";
  case NodeKind::Slice: return "(slice" + dumpKids(*n) + ")";
  case NodeKind::Starred: return fmt::format("({} {})", n->text, dump(n->kids[0].get()));
  case NodeKind::Call: {
    std::string out = "(call " + dump(n->kids[0].get());
    for (std::size_t i = 1; i < n->kids.size(); ++i)
      out += " " + (n->keywords[i - 1].empty() ? "" : n->keywords[i - 1] + "=") + dump(n->kids[i].get());
    return out + ")";
  }
  case NodeKind::Lambda: return fmt::format("(lambda ({}) {})", fmt::join(n->params, " "), dump(n->kids[0].get()));
  case NodeKind::Binary:
  case NodeKind::BoolOp: return fmt::format("({}{})", n->text, dumpKids(*n));
  case NodeKind::Unary: return fmt::format("(u{}{})", n->text, dumpKids(*n));
  case NodeKind::Compare: {
    std::string out = "(cmp " + dump(n->kids[0].get());
    for (std::size_t i = 0; i < n->ops.size(); ++i)
      out += " " + n->ops[i] + " " + dump(n->kids[i + 1].get());
    return out + ")";
  }
  case NodeKind::IfExp: return "(ifexp" + dumpKids(*n) + ")";
  case NodeKind::ListComp: {
    std::string out = "(listcomp " + dump(n->kids[0].get());
    for (const auto& g : n->generators) {
      out += fmt::format(" (for {} {}", dump(g.target.get()), dump(g.iter.get()));
      for (const auto& c : g.conditions)
        out += " (if " + dump(c.get()) + ")";
      out += ")";
    }
    return out + ")";
  }
  }
  return "?";
}

std::string dump(const std::vector<Stmt>& body);

std::string dump(const Stmt& s) {
  std::string decorators;
  for (const auto& d : s.decorators)
    decorators += "@" + dump(d.get()) + " ";
  switch (s.kind) {
  case StmtKind::Assign: {
    std::string out = "(=";
    for (const auto& t : s.targets)
      out += " " + dump(t.get());
    return out + " " + dump(s.value.get()) + ")";
  }
  case StmtKind::AugAssign: return fmt::format("({}= {} {})", s.op, dump(s.targets[0].get()), dump(s.value.get()));
  case StmtKind::Expr: return "(expr " + dump(s.value.get()) + ")";
  case StmtKind::Pass: return "pass";
  case StmtKind::Return: return "(return " + dump(s.value.get()) + ")";
  case StmtKind::Import: {
    std::string out = "(import";
    for (const auto& b : s.imports)
      out += " " + b.alias + "=" + b.module;
    return out + ")";
  }
  case StmtKind::FunctionDef: {
    std::string params;
    for (const auto& p : s.params)
      params +=
          fmt::format("{}{}{}{}", params.empty() ? "" : " ", p.name, p.annotation ? ":" + dump(p.annotation.get()) : "",
                      p.defaultValue ? "=" + dump(p.defaultValue.get()) : "");
    return fmt::format("({}def {} ({}){} {})", decorators, s.name, params,
                       s.returns ? " -> " + dump(s.returns.get()) : "", dump(s.body));
  }
  case StmtKind::ClassDef: {
    std::string bases;
    for (const auto& b : s.bases)
      bases += " " + dump(b.get());
    return fmt::format("({}class {}{} {})", decorators, s.name, bases.empty() ? "" : " (" + bases.substr(1) + ")",
                       dump(s.body));
  }
  case StmtKind::For: return fmt::format("(for {} {} {})", dump(s.targets[0].get()), dump(s.value.get()), dump(s.body));
  case StmtKind::If:
    return fmt::format("(if {} {}{})", dump(s.value.get()), dump(s.body),
                       s.orelse.empty() ? "" : " else " + dump(s.orelse));
  case StmtKind::With: {
    std::string items;
    for (const auto& i : s.items)
      items += fmt::format("{}{}{}", items.empty() ? "" : " ", dump(i.context.get()),
                           i.target ? " as " + dump(i.target.get()) : "");
    return fmt::format("(with {} {})", items, dump(s.body));
  }
  }
  return "?";
}

std::string dump(const std::vector<Stmt>& body) {
  std::string out = "[";
  for (const auto& s : body)
    out += (out.size() > 1 ? " " : "") + dump(s);
  return out + "]";
}

const Dialect& plain() {
  static const Dialect d;
  return d;
}

QString moduleText(const std::string& source, const Dialect& dialect = plain()) {
  auto m = parseModule(source, "t.py", dialect);
  if (!m) return QString::fromStdString("error: " + renderDiagnostic(m.error()));
  return QString::fromStdString(dump(m->body));
}

QString errorText(const std::string& source, const Dialect& dialect = plain()) {
  auto m = parseModule(source, "t.py", dialect);
  if (m) return QStringLiteral("parsed");
  return QString::fromStdString(m.error().code + " " + renderDiagnostic(m.error(), source));
}

std::string tokenText(const Token& t) {
  switch (t.kind) {
  case TokenKind::Name:
  case TokenKind::Op:
  case TokenKind::Int:
  case TokenKind::Float: return fmt::format("{}@{}:{}+{}", t.text, t.loc.line, t.loc.column, t.loc.length);
  case TokenKind::Str: return fmt::format("'{}'@{}:{}+{}", t.text, t.loc.line, t.loc.column, t.loc.length);
  case TokenKind::Newline: return fmt::format("NL@{}:{}", t.loc.line, t.loc.column);
  case TokenKind::Indent: return fmt::format("INDENT@{}:{}", t.loc.line, t.loc.column);
  case TokenKind::Dedent: return fmt::format("DEDENT@{}:{}", t.loc.line, t.loc.column);
  case TokenKind::End: return "END";
  }
  return "?";
}

} // namespace

class TstPythonSyntax : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void tokens() {
    const std::string src = "def f(x):  # comment\n"
                            "    y = 0x1F + 2.5e1\n"
                            "\n"
                            "    # only a comment\n"
                            "    return 'a\\tb' \\\n"
                            "        + \"\"\"c\n"
                            "d\"\"\"\n"
                            "z = [1,\n"
                            "     2]\n";
    auto toks = tokenize(src, "t.py", plain());
    QVERIFY(toks);
    std::vector<std::string> text;
    for (const auto& t : *toks)
      text.push_back(tokenText(t));
    QCOMPARE(QString::fromStdString(fmt::format("{}", fmt::join(text, " "))),
             QStringLiteral("def@1:1+3 f@1:5+1 (@1:6+1 x@1:7+1 )@1:8+1 :@1:9+1 NL@1:21 "
                            "INDENT@2:5 y@2:5+1 =@2:7+1 0x1F@2:9+4 +@2:14+1 2.5e1@2:16+5 NL@2:21 "
                            "return@5:5+6 'a\tb'@5:12+6 +@6:9+1 'c\nd'@6:11+3 NL@7:5 "
                            "DEDENT@8:1 z@8:1+1 =@8:3+1 [@8:5+1 1@8:6+1 ,@8:7+1 2@9:6+1 ]@9:7+1 NL@9:8 END"));
    QCOMPARE((*toks)[10].ival, std::int64_t(31));
    QCOMPARE((*toks)[12].fval, 25.0);
  }

  void hexEscapes() {
    // \xHH is the character (the printers write control characters so); a malformed one
    // stays as written.
    auto toks = tokenize("'a\\x00b\\x1Fc' '\\xZ1'", "t.py", plain());
    QVERIFY(toks);
    QCOMPARE((*toks)[0].text, std::string("a\0b\x1f"
                                          "c",
                                          5));
    QCOMPARE((*toks)[1].text, std::string("\\xZ1"));
  }

  void dedentsAtEndOfFile() {
    auto toks = tokenize("if a:\n  if b:\n    c", "t.py", plain());
    QVERIFY(toks);
    std::vector<std::string> text;
    for (const auto& t : *toks)
      text.push_back(tokenText(t));
    QCOMPARE(QString::fromStdString(fmt::format("{}", fmt::join(text, " "))),
             QStringLiteral("if@1:1+2 a@1:4+1 :@1:5+1 NL@1:6 INDENT@2:3 if@2:3+2 b@2:6+1 :@2:7+1 NL@2:8 "
                            "INDENT@3:5 c@3:5+1 NL@3:6 DEDENT@3:6 DEDENT@3:6 END"));
  }

  void expressions_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("tree");
    QTest::newRow("precedence") << "a + b * c ** -d // e - f"
                                << "(- (+ a (// (* b (** c (u- d))) e)) f)";
    QTest::newRow("power binds right") << "-a ** b ** c"
                                       << "(u- (** a (** b c)))";
    QTest::newRow("bitwise") << "a | b & c + d"
                             << "(| a (& b (+ c d)))";
    QTest::newRow("boolean") << "not a or b and not c"
                             << "(or (unot a) (and b (unot c)))";
    QTest::newRow("chained comparison") << "0 <= i < n == m"
                                        << "(cmp 0 <= i < n == m)";
    QTest::newRow("membership") << "a not in b is not c in d"
                                << "(cmp a not in b is not c in d)";
    QTest::newRow("conditional") << "a if c else b if d else e"
                                 << "(ifexp c a (ifexp d b e))";
    QTest::newRow("lambda") << "lambda i, j: A[i, j] * 2"
                            << "(lambda (i j) (* (sub A i j) 2))";
    QTest::newRow("call arguments") << "f(a, *rest, k=1, **kw)"
                                    << "(call f a (* rest) k=1 (** kw))";
    QTest::newRow("attribute chain") << "T.axis.remap(\"SS\", [i, j])"
                                     << "(call (. (. T axis) remap) 'SS' (list i j))";
    QTest::newRow("subscript tuple") << "B[vi, vj]"
                                     << "(sub B vi vj)";
    QTest::newRow("subscript parenthesised tuple") << "B[(vi, vj)]"
                                                   << "(sub B vi vj)";
    QTest::newRow("slices") << "A[1:n, :, ::2, i:]"
                            << "(sub A (slice 1 n _) (slice _ _ _) (slice _ _ 2) (slice i _ _))";
    QTest::newRow("slice with step") << "A[a:b:c]"
                                     << "(sub A (slice a b c))";
    QTest::newRow("displays") << "((), (1,), [], {'a': 1, 2: [3]})"
                              << "(tuple (tuple) (tuple 1) (list) (dict 'a' 1 2 (list 3)))";
    QTest::newRow("comprehension") << "[x * y for x in xs if x > 0 for y in range(x)]"
                                   << "(listcomp (* x y) (for x xs (if (cmp x > 0))) (for y (call range x)))";
    QTest::newRow("comprehension tuple target") << "[k for k, v in items]"
                                                << "(listcomp k (for (tuple k v) items))";
    QTest::newRow("strings concatenate") << "'a' \"b\" '''c'''"
                                         << "'abc'";
    QTest::newRow("tuple without parentheses") << "1, 2,"
                                               << "(tuple 1 2)";
  }
  void expressions() {
    QFETCH(QString, source);
    QFETCH(QString, tree);
    auto e = parseExpression(source.toStdString(), "e.py", plain());
    QVERIFY2(e, e ? "" : renderDiagnostic(e.error()).c_str());
    QCOMPARE(QString::fromStdString(dump(e->get())), tree);
  }

  void statements_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("tree");
    QTest::newRow("assignments") << "a = b = 1; c, d = d, c\n(e, f) = g\nx += 1\ny **= 2\n"
                                 << "[(= a b 1) (= (tuple c d) (tuple d c)) (= (tuple e f) g) (+= x 1) (**= y 2)]";
    QTest::newRow("imports")
        << "import tvm\nimport tvm.te\nimport numpy as np\nfrom tvm.script import tir as T, relax\n"
        << "[(import tvm=tvm) (import tvm=tvm) (import np=numpy) (import T=tvm.script.tir relax=tvm.script.relax)]";
    QTest::newRow("def") << "@T.prim_func\n@other(1)\ndef main(a, b: int, c=2, d: T.int32 = 3) -> None:\n    "
                            "\"\"\"doc\"\"\"\n    return a\n"
                         << "[(@(. T prim_func) @(call other 1) def main (a b:int c=2 d:(. T int32)=3) -> None [(expr "
                            "'doc') (return a)])]";
    QTest::newRow("def on one line") << "def f(): pass\n"
                                     << "[(def f () [pass])]";
    QTest::newRow("class")
        << "@I.ir_module\nclass Module(Base, object):\n    @T.prim_func\n    def f():\n        return\n"
        << "[(@(. I ir_module) class Module (Base object) [(@(. T prim_func) def f () [(return _)])])]";
    QTest::newRow("for") << "for i, j in T.grid(4, 8):\n    x = i\nfor k in range(3): pass\n"
                         << "[(for (tuple i j) (call (. T grid) 4 8) [(= x i)]) (for k (call range 3) [pass])]";
    QTest::newRow("if elif else") << "if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n"
                                  << "[(if a [(= x 1)] else [(if b [(= x 2)] else [(= x 3)])])]";
    QTest::newRow("with") << "with T.block(\"B\"), open(f) as g:\n    pass\n"
                          << "[(with (call (. T block) 'B') (call open f) as g [pass])]";
    QTest::newRow("nested blocks dedent twice")
        << "for i in a:\n    for j in b:\n        x = 1\n\n  # a comment at another indentation\ny = 2\n"
        << "[(for i a [(for j b [(= x 1)])]) (= y 2)]";
    QTest::newRow("blocks in brackets keep going") << "if a:\n    x = [1,\n2]\n    y = 3\n"
                                                   << "[(if a [(= x (list 1 2)) (= y 3)])]";
  }
  void statements() {
    QFETCH(QString, source);
    QFETCH(QString, tree);
    QCOMPARE(moduleText(source.toStdString()), tree);
  }

  void tvmScript() {
    const std::string src = "@T.prim_func\n"
                            "def main(A: T.Buffer((128, 128), \"float32\")):\n"
                            "    for i, j in T.grid(128, 128):\n"
                            "        with T.block(\"B\"):\n"
                            "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                            "            B[vi, vj] = A[vi, vj] * T.float32(2)";
    auto m = parseModule(src, "main.py", plain());
    QVERIFY2(m, m ? "" : renderDiagnostic(m.error(), src).c_str());
    QCOMPARE(QString::fromStdString(dump(m->body)),
             QStringLiteral("[(@(. T prim_func) def main (A:(call (. T Buffer) (tuple 128 128) 'float32')) "
                            "[(for (tuple i j) (call (. T grid) 128 128) "
                            "[(with (call (. T block) 'B') "
                            "[(= (tuple vi vj) (call (. (. T axis) remap) 'SS' (list i j))) "
                            "(= (sub B vi vj) (* (sub A vi vj) (call (. T float32) 2)))])])])]"));
    // Exact locations: the def, its parameter's annotation, the loop, the block and the store.
    const Stmt& def = m->body[0];
    QCOMPARE(def.loc.line, 2);
    QCOMPARE(def.loc.column, 1);
    QCOMPARE(def.nameLoc.column, 5);
    QCOMPARE(def.decorators[0]->loc.line, 1);
    QCOMPARE(def.decorators[0]->loc.column, 2);
    QCOMPARE(def.decorators[0]->loc.length, 11);
    const Node& annotation = *def.params[0].annotation;
    QCOMPARE(annotation.loc.column, 13);
    QCOMPARE(annotation.loc.length, 31);
    const Stmt& loop = def.body[0];
    QCOMPARE(loop.loc.line, 3);
    QCOMPARE(loop.loc.column, 5);
    QCOMPARE(loop.value->loc.column, 17);
    QCOMPARE(loop.value->loc.length, 16);
    const Stmt& block = loop.body[0];
    QCOMPARE(block.loc.line, 4);
    QCOMPARE(block.loc.column, 9);
    const Stmt& store = block.body[1];
    QCOMPARE(store.loc.line, 6);
    QCOMPARE(store.targets[0]->loc.column, 13);
    QCOMPARE(store.targets[0]->loc.length, 9);
    QCOMPARE(store.value->loc.column, 25);
    QCOMPARE(store.value->loc.length, 24);
    QCOMPARE(store.value->kids[1]->kids[1]->loc.column, 47);
  }

  void expressionInputIgnoresIndentation() {
    auto e = parseExpression("    lambda i: i // 2\n", "e.py", plain());
    QVERIFY(e);
    QCOMPARE(QString::fromStdString(dump(e->get())), QStringLiteral("(lambda (i) (// i 2))"));
    QCOMPARE((*e)->loc.column, 5);
    auto two = parseExpression("1\n  + 2\n", "e.py", plain());
    QVERIFY(!two);
    QCOMPARE(QString::fromStdString(renderDiagnostic(two.error())),
             QStringLiteral("e.py:2:3: error: expected the end of the expression, found '+'\n"));
  }

  void multiLineNodesKeepTheirFirstLine() {
    auto e = parseExpression("f(a,\n  b) + g", "e.py", plain());
    QVERIFY(e);
    QCOMPARE((*e)->loc.line, 1);
    QCOMPARE((*e)->loc.column, 1);
    QCOMPARE((*e)->loc.length, 1); // the call ends on line 2: its span is clipped to its first token
    QCOMPARE((*e)->kids[1]->loc.line, 2);
    QCOMPARE((*e)->kids[1]->loc.column, 8);
  }

  void errors_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("rendered");
    QTest::newRow("unexpected indent")
        << "x = 1\n    y = 2\n"
        << "syntax.indentation t.py:2:5: error: unexpected indentation\n      y = 2\n      ^\n";
    QTest::newRow("unindent mismatch") << "if a:\n        x = 1\n    y = 2\n"
                                       << "syntax.indentation t.py:3:5: error: unindent does not match any outer "
                                          "indentation level\n      y = 2\n      ^\n";
    QTest::newRow("def without body")
        << "def f(x):\nreturn x\n"
        << "syntax.unexpected-token t.py:2:1: error: expected an indented block after the "
           "function definition on line 1\n  return x\n  ^\n";
    QTest::newRow("for without body at end")
        << "for i in x:\n"
        << "syntax.unexpected-token t.py:2:1: error: expected an indented block after "
           "the 'for' statement on line 1\n  \n  ^\n";
    QTest::newRow("else without body")
        << "if a:\n  pass\nelse:\nx = 1\n"
        << "syntax.unexpected-token t.py:4:1: error: expected an indented block after the "
           "'else' statement on line 3\n  x = 1\n  ^\n";
    QTest::newRow("decorator without def")
        << "@T.prim_func\nx = 1\n"
        << "syntax.unexpected-token t.py:2:1: error: expected 'def' or 'class' after the "
           "decorator, found 'x'\n  x = 1\n  ^\n";
    QTest::newRow("for without in") << "for i of x:\n  pass\n"
                                    << "syntax.unexpected-token t.py:1:7: error: expected 'in', found 'of'\n"
                                       "  for i of x:\n        ^~\n";
    QTest::newRow("missing colon") << "class A\n  pass\n"
                                   << "syntax.unexpected-token t.py:1:8: error: expected ':', found end of line\n"
                                      "  class A\n         ^\n";
    QTest::newRow("keyword as expression") << "x = class\n"
                                           << "syntax.unexpected-token t.py:1:5: error: expected an expression, found "
                                              "keyword 'class'\n  x = class\n      ^~~~~\n";
    QTest::newRow("positional after keyword") << "f(a=1, 2)\n"
                                              << "syntax.unexpected-token t.py:1:8: error: positional argument follows "
                                                 "keyword argument\n  f(a=1, 2)\n         ^\n";
    QTest::newRow("unclosed bracket")
        << "x = [1,\n  2\n"
        << "syntax.unbalanced t.py:1:5: error: '[' was never closed\n  x = [1,\n      ^\n";
    QTest::newRow("mismatched bracket")
        << "x = (1]\n"
        << "syntax.unbalanced t.py:1:7: error: closing ']' does not match '(' opened at "
           "line 1, column 5\n  x = (1]\n        ^\n";
    QTest::newRow("empty subscript") << "x = a[]\n"
                                     << "syntax.unexpected-token t.py:1:7: error: expected an index, found ']'\n"
                                        "  x = a[]\n        ^\n";
    QTest::newRow("too deep") << "x = " + QString(200, '(') + "1" + QString(200, ')') + "\n"
                              << "";
  }
  void errors() {
    QFETCH(QString, source);
    QFETCH(QString, rendered);
    const QString got = errorText(source.toStdString());
    if (rendered.isEmpty()) {
      QVERIFY2(got.startsWith(QStringLiteral("syntax.too-deep ")), qPrintable(got));
      return;
    }
    QCOMPARE(got, rendered);
  }

  void dialects() {
    Dialect d;
    d.codePrefix = "mine";
    d.oneCode = true;
    d.wording = TokenWording::Brief;
    d.flatIndentationMessage = "no blocks here";
    d.matchBrackets = false;
    d.rejectedChars = "@";
    d.intRange = "64 bits";
    d.expectedWording = {{"';' or the end of the line", "the end of the statement"}};
    d.checkStatement = [](const Token& first, const Token&) -> std::optional<Diagnostic> {
      if (first.kind == TokenKind::Name && first.text == "while")
        return Diagnostic::error("mine.no-while", "no while loops", first.loc);
      return std::nullopt;
    };
    QCOMPARE(errorText("x = 1\n  y = 2\n", d),
             QStringLiteral("mine.syntax t.py:2:3: error: no blocks here\n    y = 2\n    ^\n"));
    QCOMPARE(errorText("x = f(a]\n", d),
             QStringLiteral("mine.syntax t.py:1:8: error: expected ',' or ')', found ']'\n  x = f(a]\n         ^\n"));
    QCOMPARE(
        errorText("x = [1 2]\n", d),
        QStringLiteral("mine.syntax t.py:1:8: error: expected ',' or ']', found a number\n  x = [1 2]\n         ^\n"));
    QCOMPARE(errorText("x = 1 +\n", d),
             QStringLiteral("mine.syntax t.py:1:8: error: expected an expression, found the end of the line\n"
                            "  x = 1 +\n         ^\n"));
    QCOMPARE(errorText("@f\ndef g(): pass\n", d),
             QStringLiteral("mine.syntax t.py:1:1: error: unexpected character '@'\n  @f\n  ^\n"));
    QCOMPARE(
        errorText("x = 99999999999999999999\n", d),
        QStringLiteral("mine.syntax t.py:1:5: error: integer literal 99999999999999999999 does not fit in 64 bits\n"
                       "  x = 99999999999999999999\n      ^~~~~~~~~~~~~~~~~~~~\n"));
    QCOMPARE(errorText("x = 1; while x: pass\n", d),
             QStringLiteral("mine.no-while t.py:1:8: error: no while loops\n  x = 1; while x: pass\n         ^~~~~\n"));
    QCOMPARE(errorText("for i in x: while i: pass\n", d),
             QStringLiteral("mine.no-while t.py:1:13: error: no while loops\n  for i in x: while i: pass\n"
                            "              ^~~~~\n"));
    QCOMPARE(errorText("x = 1 2\n", d),
             QStringLiteral("mine.syntax t.py:1:7: error: expected the end of the statement, found a number\n"
                            "  x = 1 2\n        ^\n"));
    QCOMPARE(errorText("x = 1 2\n"), QStringLiteral("syntax.unexpected-token t.py:1:7: error: expected ';' or the end "
                                                    "of the line, found number '2'\n  x = 1 2\n        ^\n"));
    // Constructs a dialect leaves out of its grammar are reported as a parser without them would.
    Dialect small;
    small.slices = false;
    small.comprehensions = false;
    small.starredArguments = false;
    small.unsupportedOperators = {"in", "is not"};
    QCOMPARE(errorText("x = A[1:2]\n", small),
             QStringLiteral("syntax.unexpected-token t.py:1:8: error: expected ',' or "
                            "']', found ':'\n  x = A[1:2]\n         ^\n"));
    QCOMPARE(errorText("x = [i for i in y]\n", small),
             QStringLiteral("syntax.unexpected-token t.py:1:8: error: expected ',' or ']', found keyword 'for'\n"
                            "  x = [i for i in y]\n         ^~~\n"));
    QCOMPARE(errorText("f(*args)\n", small), QStringLiteral("syntax.unexpected-token t.py:1:3: error: expected an "
                                                            "argument or ')', found '*'\n  f(*args)\n    ^\n"));
    QCOMPARE(errorText("x = a is not b\n", small),
             QStringLiteral("syntax.unsupported t.py:1:7: error: operator 'is' is "
                            "not supported\n  x = a is not b\n        ^~\n"));
    QCOMPARE(moduleText("x = a is b\n", small), QStringLiteral("[(= x (cmp a is b))]"));
    // The default dialect reads the same text in Python's way.
    QCOMPARE(moduleText("@f\ndef g(): pass\n"), QStringLiteral("[(@f def g () [pass])]"));
    QCOMPARE(
        errorText("x = f(a]\n"),
        QStringLiteral("syntax.unbalanced t.py:1:8: error: closing ']' does not match '(' opened at line 1, column 6\n"
                       "  x = f(a]\n         ^\n"));
  }
};

QTEST_GUILESS_MAIN(TstPythonSyntax)
#include "tst_python_syntax.moc"
