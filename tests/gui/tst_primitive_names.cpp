// Nothing in views/ or app/ names a primitive: the panel, the menus, the shortcuts, the
// trace view and the step builder read what they need from the instruction table
// (core/schedule/instruction.h). This test scans every source of views/ and app/ for a
// string literal that is the Python or JSON name of a registered instruction kind (the
// TIR kinds and the poly_* family). The names of loop kinds (ir::forKindName:
// "parallel", "unroll") are exempt: the tree views print a band member as "parallel",
// which is about the loop, not the primitive. Comments are not scanned.
#include "core/ir/stmt.h"
#include "core/poly/poly_schedule.h"
#include "core/schedule/instruction.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace loopscape;

namespace {

struct Literal {
  std::string text;
  int line = 0;
};

/// The string literals of C++ source `src` (contents unescaped only as far as `\"`, enough
/// to compare with identifiers), outside comments and character literals.
std::vector<Literal> stringLiterals(const std::string& src) {
  std::vector<Literal> out;
  int line = 1;
  std::size_t i = 0;
  const std::size_t n = src.size();
  while (i < n) {
    const char c = src[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      while (i < n && src[i] != '\n')
        ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(src[i] == '*' && src[i + 1] == '/'))
        line += src[i++] == '\n';
      i += 2;
    } else if (c == '\'') {
      ++i;
      while (i < n && src[i] != '\'')
        i += src[i] == '\\' ? 2 : 1;
      ++i;
    } else if (c == 'R' && i + 1 < n && src[i + 1] == '"') { // raw string R"d(...)d"
      const std::size_t open = src.find('(', i);
      const std::string close = ")" + src.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = src.find(close, open);
      Literal lit{src.substr(open + 1, end - open - 1), line};
      for (char ch : lit.text)
        line += ch == '\n';
      out.push_back(std::move(lit));
      i = end + close.size();
    } else if (c == '"') {
      Literal lit{{}, line};
      ++i;
      while (i < n && src[i] != '"') {
        if (src[i] == '\\' && i + 1 < n) {
          lit.text += src[i + 1];
          i += 2;
        } else {
          lit.text += src[i++];
        }
      }
      ++i;
      out.push_back(std::move(lit));
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      // Whole identifiers, so that an R inside one never starts a raw string (u8"x" stays a literal).
      while (i < n && (std::isalnum(static_cast<unsigned char>(src[i])) || src[i] == '_'))
        ++i;
    } else {
      ++i;
    }
  }
  return out;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

class TestPrimitiveNames : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void scannerFindsLiteralsOutsideComments() {
    const auto lits =
        stringLiterals("// \"split\"\n/* \"fuse\" */ auto a = QStringLiteral(\"reorder\"); char q = '\"';\n"
                       "f(\"a\\\"b\", R\"(poly_tile)\");\n");
    QCOMPARE(lits.size(), std::size_t(3));
    QCOMPARE(lits[0].text, std::string("reorder"));
    QCOMPARE(lits[0].line, 2);
    QCOMPARE(lits[1].text, std::string("a\"b"));
    QCOMPARE(lits[2].text, std::string("poly_tile"));
    QCOMPARE(lits[2].line, 3);
  }

  void viewsAndAppNameNoPrimitive() {
    poly::registerPolyInstructionKinds();
    std::set<std::string> names;
    for (const schedule::InstructionKind* k : schedule::instructionKinds()) {
      names.emplace(k->name);
      names.emplace(k->jsonName);
    }
    QVERIFY(names.contains("split") && names.contains("poly_tile") && names.contains("GetBlock"));
    for (ir::ForKind f : {ir::ForKind::Serial, ir::ForKind::Parallel, ir::ForKind::Vectorized, ir::ForKind::Unrolled,
                          ir::ForKind::ThreadBinding})
      names.erase(ir::forKindName(f));

    const fs::path root = LS_SOURCE_DIR;
    QStringList found;
    int files = 0;
    for (const char* dir : {"views", "app"}) {
      for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
        const std::string ext = entry.path().extension().string();
        if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
        ++files;
        for (const Literal& lit : stringLiterals(readFile(entry.path())))
          if (names.contains(lit.text))
            found << QStringLiteral("%1:%2: \"%3\"")
                         .arg(QString::fromStdString(fs::relative(entry.path(), root).string()))
                         .arg(lit.line)
                         .arg(QString::fromStdString(lit.text));
      }
    }
    QVERIFY(files > 20);
    QVERIFY2(found.isEmpty(), qPrintable(found.join(u'\n')));
  }
};

QTEST_GUILESS_MAIN(TestPrimitiveNames)
#include "tst_primitive_names.moc"
