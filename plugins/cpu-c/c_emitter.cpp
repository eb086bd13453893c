#include "plugins/cpu-c/c_emitter.h"

#include "core/codegen/lower.h"

#include "core/ir/functor.h"
#include "core/ir/op.h"
#include "core/ir/simplify.h"
#include "core/ir/structural_equal.h"
#include "core/ir/visitor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace loopscape::codegen::cpu_c {

using namespace ir;

std::string cType(DataType t) {
  switch (t.code()) {
  case DataType::Code::Bool: return "bool";
  case DataType::Code::Int: return "int" + std::to_string(t.bits()) + "_t";
  case DataType::Code::UInt: return "uint" + std::to_string(t.bits()) + "_t";
  case DataType::Code::Float:
    if (t.bits() == 16) return "_Float16";
    return t.bits() == 64 ? "double" : "float";
  }
  LS_UNREACHABLE("bad DataType code");
}

namespace {

// C operator precedence (higher binds tighter).
enum Prec : int { kTernary = 3, kOr = 4, kAnd = 5, kEq = 9, kRel = 10, kAdd = 12, kMul = 13, kUnary = 15, kAtom = 16 };

struct CExpr {
  std::string text;
  int prec = kAtom;
  /// The IR type is int32 but the C expression is int64_t (it involves a loop or lane
  /// variable, which are int64_t in C). Outside indices such a value is always within the
  /// int32 range: arithmetic that could leave it is cast back (see Emitter::arith).
  bool wide = false;
};

std::string paren(const CExpr& e, int minPrec) { return e.prec < minPrec ? "(" + e.text + ")" : e.text; }

const std::set<std::string>& reservedNames() {
  static const std::set<std::string> names = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
      "true", "false", "buffers", "sizes", "free", "abs", "exp", "log", "sqrt", "tanh", "erf", "pow",
      "fabs", "floor", "ceil", "round", "fma", "main"};
  return names;
}

/// Unique C identifiers for the Vars and Buffers of one function.
class Names {
public:
  Names() {
    for (const auto& n : reservedNames()) m_taken.insert(n);
  }
  std::string of(const void* node, const std::string& hint) {
    auto it = m_names.find(node);
    if (it != m_names.end()) return it->second;
    std::string base = sanitizeIdentifier(hint);
    if (base.starts_with("ls_")) base = "v_" + base;
    std::string name = base;
    for (int i = 1; m_taken.contains(name); ++i) name = base + "_" + std::to_string(i);
    m_taken.insert(name);
    return m_names[node] = name;
  }
  /// A new name that no Var or Buffer will take.
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int i = 1; m_taken.contains(name); ++i) name = base + "_" + std::to_string(i);
    m_taken.insert(name);
    return name;
  }

private:
  std::unordered_map<const void*, std::string> m_names;
  std::set<std::string> m_taken;
};

std::string floatLiteral(double v, int bits) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[64];
  std::snprintf(buf, sizeof buf, bits == 64 ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  if (bits == 64) return s;
  return bits == 16 ? "(_Float16)" + s + "f" : s + "f";
}

std::string intLiteral(DataType t, std::int64_t v) {
  if (t.isBool()) return v ? "true" : "false";
  if (t.isUInt()) return std::to_string(static_cast<std::uint64_t>(v) & (t.bits() == 64 ? ~0ull : ((1ull << t.bits()) - 1))) + "u";
  if (v == std::numeric_limits<std::int64_t>::min()) return "INT64_MIN";
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
    return std::to_string(v) + "LL";
  if (v == std::numeric_limits<std::int32_t>::min()) return "(-2147483647 - 1)";
  return std::to_string(v);
}

/// True when C's usual arithmetic conversions would compute `t` in a wider type, so the
/// result must be cast back to wrap (bool excluded: it never reaches arithmetic).
bool isNarrowInt(DataType t) { return t.isInteger() && t.bits() < 32; }
bool isHalf(DataType t) { return t.isFloat() && t.bits() == 16; }

class Emitter final : public ExprFunctor<CExpr> {
public:
  explicit Emitter(int threads) : m_threads(threads) {}

  /// The translation unit; with `loops`, the lines each For produced (c_emitter.h).
  std::string run(const LoweredFunc& func, std::vector<LoopLines>* loops = nullptr) {
    for (std::size_t i = 0; i < func.flatParams.size(); ++i) m_names.of(func.flatParams[i].get(), func.flatParams[i]->name);
    for (const auto& v : func.sizeVars) m_names.of(v.get(), v.as<Var>()->name);
    m_kernelName = func.name;
    m_indent = 1;
    emitStmt(func.body);
    std::string body = std::move(m_out);

    std::string sig = "void " + func.name + "(";
    std::string call;
    for (std::size_t i = 0; i < func.flatParams.size(); ++i) {
      const Buffer& b = func.flatParams[i];
      std::string t = cType(b->dtype);
      sig += (i ? ", " : "") + t + "* restrict " + m_names.of(b.get(), b->name);
      call += (i ? ", " : "") + std::string("(") + t + "*)buffers[" + std::to_string(i) + "]";
    }
    for (std::size_t i = 0; i < func.sizeVars.size(); ++i) {
      bool first = func.flatParams.empty() && i == 0;
      sig += (first ? "" : ", ") + std::string("int64_t ") + m_names.of(func.sizeVars[i].get(), "");
      call += (first ? "" : ", ") + std::string("sizes[") + std::to_string(i) + "]";
    }
    if (func.flatParams.empty() && func.sizeVars.empty()) sig += "void";
    sig += ")";

    std::string out;
    out += "// Generated by loopscape (target cpu-c) from PrimFunc \"" + func.name.substr(0, func.name.size() - 7) +
           "\".\n";
    out += "// Kernel ABI: one pointer per parameter (flat row-major data), then one int64_t per\n";
    out += "// symbolic size; " + func.name + "_packed takes them as arrays.\n";
    out += "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n";
    for (const auto& [key, text] : m_helpers) out += text;
    if (!m_helpers.empty()) out += "\n";
    const std::size_t functionsStart = out.size();
    out += m_functions;
    out += sig + " {\n";
    const std::size_t bodyStart = out.size();
    out += body + "}\n\n";
    out += "void " + func.name + "_packed(void* const* buffers, const int64_t* sizes) {\n";
    if (func.flatParams.empty()) out += "  (void)buffers;\n";
    if (func.sizeVars.empty()) out += "  (void)sizes;\n";
    out += "  " + func.name + "(" + call + ");\n}\n";
    if (loops) *loops = loopLines(out, functionsStart, bodyStart);
    return out;
  }

private:
  // ---- the loops' lines --------------------------------------------------------------

  /// Where one For's text is, as byte offsets [begin, end) (end just past the newline of
  /// its last line) into m_functions (region kFunctions), or into the m_out of the kernel
  /// (region 0) or of the parallel loop body being outlined (region > 0; outline() moves
  /// them into m_functions when the body is placed there).
  struct Span {
    const ExprNode* loopVar;
    int region;
    std::size_t begin, end;
  };
  static constexpr int kFunctions = -1;

  std::vector<LoopLines> loopLines(const std::string& out, std::size_t functionsStart, std::size_t bodyStart) const {
    std::vector<std::size_t> lineStarts{0};
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] == '\n') lineStarts.push_back(i + 1);
    auto lineOf = [&](std::size_t offset) {
      return static_cast<int>(std::upper_bound(lineStarts.begin(), lineStarts.end(), offset) - lineStarts.begin());
    };
    std::vector<LoopLines> lines;
    for (const Span& s : m_spans) {
      LS_ASSERT(s.region == 0 || s.region == kFunctions, "cpu-c: a loop span was left in an outlined body");
      const std::size_t base = s.region == 0 ? bodyStart : functionsStart;
      lines.push_back({s.loopVar, lineOf(base + s.begin), lineOf(base + s.end - 1)});
    }
    std::stable_sort(lines.begin(), lines.end(), [](const LoopLines& a, const LoopLines& b) {
      return a.firstLine != b.firstLine ? a.firstLine < b.firstLine : a.lastLine > b.lastLine;
    });
    return lines;
  }

  // ---- statements -------------------------------------------------------------------

  void line(const std::string& text) {
    m_out.append(static_cast<std::size_t>(m_indent) * 2, ' ');
    m_out += text;
    m_out += '\n';
  }

  void emitStmt(const Stmt& s) {
    if (const auto* op = s.as<SeqStmt>()) {
      for (const auto& sub : op->seq) emitStmt(sub);
    } else if (const auto* op = s.as<For>()) {
      emitFor(*op);
    } else if (const auto* op = s.as<BufferStore>()) {
      emitStore(*op);
    } else if (const auto* op = s.as<IfThenElse>()) {
      line("if (" + print(op->condition).text + ") {");
      emitScoped(op->thenCase);
      if (op->elseCase.defined()) {
        line("} else {");
        emitScoped(op->elseCase);
      }
      line("}");
    } else if (const auto* op = s.as<Evaluate>()) {
      if (const auto* str = op->value.as<StringImm>()) {
        const std::string& m = str->value;
        bool init = m.ends_with(".init");
        line("// block " + (init ? m.substr(0, m.size() - 5) + " (init)" : m));
      } else if (!op->value.is<IntImm>()) {
        line("(void)(" + print(op->value).text + ");");
      }
    } else if (const auto* op = s.as<LetStmt>()) {
      line("{");
      ++m_indent;
      line("const " + cType(op->value.dtype()) + " " + m_names.of(op->var.get(), op->var.as<Var>()->name) + " = " +
           print(op->value).text + ";");
      emitStmt(op->body);
      --m_indent;
      line("}");
    } else if (const auto* op = s.as<Allocate>()) {
      emitAllocate(*op);
    } else {
      LS_UNREACHABLE("cpu-c: statement kind {} is not lowered", stmtKindName(s.kind()));
    }
  }

  void emitScoped(const Stmt& s) {
    ++m_indent;
    emitStmt(s);
    --m_indent;
  }

  void emitFor(const For& op) {
    std::string var = m_names.of(op.loopVar.get(), op.loopVar.as<Var>()->name);
    std::string type = cType(op.loopVar.dtype());
    if (op.loopVar.dtype() == DataType::int32()) {
      type = "int64_t";
      m_wideVars.insert(op.loopVar.get());
    }
    Expr end = simplify(Add::make(op.min, op.extent));
    const std::size_t begin = m_out.size();
    if (op.forKind == ForKind::Parallel)
      line("#pragma omp parallel for" + (m_threads > 0 ? " num_threads(" + std::to_string(m_threads) + ")" : std::string()));
    line("for (" + type + " " + var + " = " + printIndex(op.min).text + "; " + var + " < " +
         paren(printIndex(end), kRel + 1) + "; ++" + var + ") {");
    if (op.forKind == ForKind::Parallel) {
      ++m_indent;
      line(outline(op) + ";");
      --m_indent;
    } else {
      emitScoped(op.body);
    }
    line("}");
    m_spans.push_back({op.loopVar.get(), m_region, begin, m_out.size()});
  }

  /// The body of a parallel loop as a static function whose buffer parameters are
  /// `restrict` (GCC's OpenMP outlining passes the pointers through a struct and loses
  /// the kernel's `restrict`, which kept it from holding accumulators in registers).
  /// Returns the call.
  std::string outline(const For& op) {
    struct Free final : StmtVisitor {
      std::vector<const ExprNode*> vars;
      std::vector<const BufferNode*> buffers;
      std::set<const void*> seen, defined;
      void use(const void* p, bool buffer) {
        if (!seen.insert(p).second) return;
        if (buffer) buffers.push_back(static_cast<const BufferNode*>(p));
        else vars.push_back(static_cast<const ExprNode*>(p));
      }
      void visitVar(const Var&, const Expr& self) override { use(self.get(), false); }
      void visitBufferLoad(const BufferLoad& op, const Expr& self) override {
        use(op.buffer.get(), true);
        StmtVisitor::visitBufferLoad(op, self);
      }
      void visitBufferStore(const BufferStore& op, const Stmt& self) override {
        use(op.buffer.get(), true);
        StmtVisitor::visitBufferStore(op, self);
      }
      void visitFor(const For& op, const Stmt& self) override {
        defined.insert(op.loopVar.get());
        StmtVisitor::visitFor(op, self);
      }
      void visitLetStmt(const LetStmt& op, const Stmt& self) override {
        defined.insert(op.var.get());
        StmtVisitor::visitLetStmt(op, self);
      }
      void visitAllocate(const Allocate& op, const Stmt& self) override {
        defined.insert(op.buffer.get());
        for (const Expr& e : op.buffer->shape) visitExpr(e); // a heap size may name a size variable
        StmtVisitor::visitAllocate(op, self);
      }
    } free;
    free.use(op.loopVar.get(), false);
    free(op.body);
    std::string params, args;
    auto add = [&](const std::string& decl, const std::string& name) {
      params += (params.empty() ? "" : ", ") + decl;
      args += (args.empty() ? "" : ", ") + name;
    };
    for (const BufferNode* b : free.buffers) {
      if (free.defined.contains(b)) continue;
      const std::string name = m_names.of(b, b->name);
      add(cType(b->dtype) + "* restrict " + name, name);
    }
    for (const ExprNode* v : free.vars) {
      if (free.defined.contains(v)) continue;
      const std::string name = m_names.of(v, static_cast<const Var*>(v)->name);
      add((m_wideVars.contains(v) ? std::string("int64_t") : cType(v->dtype)) + " " + name, name);
    }
    const std::string fn = m_names.fresh(m_kernelName + "_par" + std::to_string(m_outlined++));
    std::string savedOut = std::move(m_out);
    const int savedIndent = m_indent, savedRegion = m_region;
    m_out.clear();
    m_indent = 1;
    m_region = ++m_regions;
    emitStmt(op.body);
    std::string body = std::move(m_out);
    m_out = std::move(savedOut);
    m_indent = savedIndent;
    const std::string head = "static void " + fn + "(" + params + ") {\n";
    const std::size_t at = m_functions.size();
    for (Span& s : m_spans) {
      if (s.region != m_region) continue;
      s.region = kFunctions;
      s.begin += at + head.size();
      s.end += at + head.size();
    }
    m_region = savedRegion;
    m_functions += head + body + "}\n";
    m_spans.push_back({op.loopVar.get(), kFunctions, at, m_functions.size()});
    m_functions += "\n";
    return fn + "(" + args + ")";
  }

  void emitStore(const BufferStore& op) {
    std::string name = m_names.of(op.buffer.get(), op.buffer->name);
    int lanes = op.value.dtype().lanes();
    if (lanes == 1) {
      line(name + "[" + printIndex(op.indices[0]).text + "] = " + print(op.value).text + ";");
      return;
    }
    if (emitVectorTypeStore(op)) return;
    if (m_laneName.empty()) m_laneName = m_names.fresh("lane");
    std::string lane = m_lane = m_laneName;
    line("#pragma omp simd");
    line("for (int64_t " + lane + " = 0; " + lane + " < " + std::to_string(lanes) + "; ++" + lane + ") {");
    ++m_indent;
    line(name + "[" + printIndex(op.indices[0]).text + "] = " + print(op.value).text + ";");
    --m_indent;
    line("}");
    m_lane.clear();
  }

  // ---- vector statements as GCC vector types ---------------------------------------

  /// Lanes per vector-type chunk of a `lanes`-wide statement of scalar type `t`: one
  /// 512-bit register or less, a power of two dividing `lanes`; 0 when there is none.
  static int chunkLanes(DataType t, int lanes) {
    if (!(t == DataType::float32() || t == DataType::float64() || t == DataType::int32() || t == DataType::int64()))
      return 0;
    const int chunk = std::min(lanes, 64 / t.bytes());
    if (chunk < 2 || (chunk & (chunk - 1)) != 0 || lanes % chunk != 0) return 0;
    return chunk;
  }

  /// True when `e` is made of contiguous loads (Ramp stride 1), Broadcasts and + - *
  /// (and float /) of element type `t`; a load of `stored` must be at index `at`.
  bool vectorTypeExpr(const Expr& e, DataType t, const Buffer& stored, const Expr& at) {
    if (e.dtype().element() != t) return false;
    if (const auto* op = e.as<BufferLoad>()) {
      const auto* ramp = op->indices[0].as<Ramp>();
      if (!ramp || !isConstInt(ramp->stride, 1)) return false;
      return op->buffer.get() != stored.get() || structuralEqual(op->indices[0], at);
    }
    if (e.is<Broadcast>()) return true;
    auto both = [&](const Expr& a, const Expr& b) {
      return vectorTypeExpr(a, t, stored, at) && vectorTypeExpr(b, t, stored, at);
    };
    if (const auto* op = e.as<Add>()) return both(op->a, op->b);
    if (const auto* op = e.as<Sub>()) return both(op->a, op->b);
    if (const auto* op = e.as<Mul>()) return both(op->a, op->b);
    if (const auto* op = e.as<Div>()) return t.isFloat() && both(op->a, op->b);
    return false;
  }

  /// Lanes [offset, offset + chunk) of a vectorTypeExpr as a C vector expression.
  CExpr vectorChunk(const Expr& e, const std::string& vt, int offset) {
    auto at = [&](const Expr& base) {
      CExpr b = printIndex(base);
      if (offset == 0) return b.text;
      return paren(b, kAdd) + " + " + std::to_string(offset);
    };
    if (const auto* op = e.as<BufferLoad>())
      return {"*(" + vt + "*)&" + m_names.of(op->buffer.get(), op->buffer->name) + "[" + at(op->indices[0].as<Ramp>()->base) + "]",
              kUnary};
    if (const auto* op = e.as<Broadcast>()) { // (vector of zeros) + scalar: the scalar in every lane
      CExpr v = print(op->value);
      std::string scalar = v.wide ? "(" + cType(op->value.dtype()) + ")" + paren(v, kUnary) : paren(v, kAdd + 1);
      return {"((" + vt + "){} + " + scalar + ")", kAtom};
    }
    auto bin = [&](const Expr& a, const Expr& b, const char* sym, int prec) {
      return CExpr{paren(vectorChunk(a, vt, offset), prec) + " " + sym + " " + paren(vectorChunk(b, vt, offset), prec + 1),
                   prec};
    };
    if (const auto* op = e.as<Add>()) return bin(op->a, op->b, "+", kAdd);
    if (const auto* op = e.as<Sub>()) return bin(op->a, op->b, "-", kAdd);
    if (const auto* op = e.as<Mul>()) return bin(op->a, op->b, "*", kMul);
    if (const auto* op = e.as<Div>()) return bin(op->a, op->b, "/", kMul);
    LS_UNREACHABLE("cpu-c: not a vector-type expression");
  }

  /// A vector store whose value is a vectorTypeExpr, written as whole-register C vector
  /// operations (GCC vector extensions), one statement per chunk. Chunks run in order, so
  /// the value may read the stored buffer only at the stored elements themselves.
  bool emitVectorTypeStore(const BufferStore& op) {
    const DataType t = op.value.dtype().element();
    const int lanes = op.value.dtype().lanes();
    const int chunk = chunkLanes(t, lanes);
    const auto* ramp = op.indices[0].as<Ramp>();
    if (chunk == 0 || !ramp || !isConstInt(ramp->stride, 1) || op.buffer->dtype != t) return false;
    if (!vectorTypeExpr(op.value, t, op.buffer, op.indices[0])) return false;
    const std::string ct = cType(t);
    const std::string vt = std::string("ls_") + (t.isFloat() ? "f" : "i") + std::to_string(t.bits()) + "x" +
                           std::to_string(chunk);
    helper("0_" + vt, "typedef " + ct + " " + vt + " __attribute__((vector_size(" + std::to_string(chunk * t.bytes()) +
                          "), aligned(" + std::to_string(t.bytes()) + "), may_alias));\n");
    const std::string name = m_names.of(op.buffer.get(), op.buffer->name);
    for (int offset = 0; offset < lanes; offset += chunk) {
      CExpr base = printIndex(ramp->base);
      std::string index = offset == 0 ? base.text : paren(base, kAdd) + " + " + std::to_string(offset);
      line("*(" + vt + "*)&" + name + "[" + index + "] = " + vectorChunk(op.value, vt, offset).text + ";");
    }
    return true;
  }

  void emitAllocate(const Allocate& op) {
    const auto& b = *op.buffer.get();
    std::string name = m_names.of(op.buffer.get(), b.name);
    std::string type = cType(b.dtype);
    auto count = asConstInt(b.shape[0]);
    line("{");
    ++m_indent;
    if (b.scope == MemoryScope::Local && count && *count * b.dtype.bytes() <= 64 * 1024) {
      line(type + " " + name + "[" + std::to_string(std::max<std::int64_t>(*count, 1)) +
           "] __attribute__((aligned(64)));");
      line("memset(" + name + ", 0, sizeof " + name + ");");
      emitStmt(op.body);
    } else {
      helper("ls_alloc", "// Zero-filled, 64-byte aligned heap memory (the interpreter's intermediates start at 0).\n"
                         "static inline void* ls_alloc(int64_t bytes) {\n"
                         "  int64_t rounded = bytes > 0 ? (bytes + 63) / 64 * 64 : 64;\n"
                         "  void* p = aligned_alloc(64, (size_t)rounded);\n"
                         "  if (p) memset(p, 0, (size_t)rounded);\n"
                         "  return p;\n}\n");
      std::string bytes = paren(print(Cast::make(DataType::int64(), b.shape[0])), kMul) + " * " +
                          std::to_string(b.dtype.bytes());
      line(type + "* restrict " + name + " = (" + type + "*)ls_alloc(" + bytes + ");");
      emitStmt(op.body);
      line("free(" + name + ");");
    }
    --m_indent;
    line("}");
  }

  // ---- expressions ------------------------------------------------------------------

  void helper(const std::string& key, const std::string& text) { m_helpers.emplace(key, text); }

  CExpr print(const Expr& e) { return visitExpr(e); }

  /// `e` as an index (buffer offset or loop bound): int32 arithmetic on loop and lane
  /// variables is computed in int64_t without wrapping back to int32.
  CExpr printIndex(const Expr& e) {
    const bool saved = m_index;
    m_index = true;
    CExpr c = print(e);
    m_index = saved;
    return c;
  }

  /// An operand of a float16 operation, converted to float.
  std::string asFloat(const Expr& e) {
    CExpr c = print(e);
    return isHalf(e.dtype()) ? "(float)" + paren(c, kUnary) : paren(c, kUnary);
  }

  CExpr wrapResult(DataType t, CExpr e) {
    if (isNarrowInt(t)) return {"(" + cType(t) + ")(" + e.text + ")", kUnary};
    return e;
  }

  CExpr infix(DataType t, const Expr& a, const Expr& b, const char* op, int prec) {
    if (isHalf(a.dtype())) {
      std::string text = asFloat(a) + " " + op + " " + asFloat(b);
      if (prec >= kAdd) return {"(_Float16)(" + text + ")", kUnary};
      return {text, prec};
    }
    return joined(t, print(a), print(b), op, prec);
  }
  CExpr joined(DataType t, const CExpr& x, const CExpr& y, const char* op, int prec) {
    return wrapResult(t, {paren(x, prec) + " " + op + " " + paren(y, prec + 1), prec});
  }

  /// `a op b` for + - *: an int32 operation with a wide (int64_t) operand stays wide in
  /// an index and is cast back to int32_t elsewhere, so values wrap exactly as in the IR.
  CExpr arith(DataType t, const Expr& a, const Expr& b, const char* op, int prec) {
    if (isHalf(a.dtype())) return infix(t, a, b, op, prec);
    CExpr x = print(a), y = print(b);
    if (!x.wide && !y.wide) return joined(t, x, y, op, prec);
    CExpr sum{paren(x, prec) + " " + op + " " + paren(y, prec + 1), prec};
    if (m_index) return {sum.text, sum.prec, true};
    return {"(int32_t)(" + sum.text + ")", kUnary};
  }

  CExpr helperCall(const std::string& fn, DataType t, const std::string& body, const std::vector<Expr>& args) {
    // In an index, an int32 helper with a wide operand runs in int64 (stays wide).
    std::vector<CExpr> printed;
    bool wide = false;
    for (const auto& a : args) {
      printed.push_back(print(a));
      wide = wide || printed.back().wide;
    }
    wide = wide && m_index && t == DataType::int32();
    if (wide) t = DataType::int64();
    std::string ct = cType(t.element());
    std::string name = "ls_" + fn + "_" + (t.isFloat() ? std::string(t.bits() == 16 ? "f16" : t.bits() == 64 ? "f64" : "f32")
                                                           : (t.isUInt() ? "u" : "i") + std::to_string(t.bits()));
    helper(name, "static inline " + ct + " " + name + "(" + ct + " a, " + ct + " b) { " + body + " }\n");
    std::string text = name + "(";
    for (std::size_t i = 0; i < printed.size(); ++i) text += (i ? ", " : "") + printed[i].text;
    return {text + ")", kAtom, wide};
  }

  CExpr visitIntImm(const IntImm& op, const Expr&) override {
    std::string s = intLiteral(op.dtype, op.value);
    return {s, s[0] == '-' || s[0] == '(' ? kUnary : kAtom};
  }
  CExpr visitFloatImm(const FloatImm& op, const Expr&) override {
    std::string s = floatLiteral(op.value, op.dtype.bits());
    return {s, s[0] == '-' || s[0] == '(' ? kUnary : kAtom};
  }
  CExpr visitStringImm(const StringImm& op, const Expr&) override { return {"\"" + op.value + "\"", kAtom}; }
  CExpr visitVar(const Var& op, const Expr&) override {
    return {m_names.of(&op, op.name), kAtom, m_wideVars.contains(&op)};
  }

  CExpr visitAdd(const Add& op, const Expr&) override { return arith(op.dtype, op.a, op.b, "+", kAdd); }
  CExpr visitSub(const Sub& op, const Expr&) override { return arith(op.dtype, op.a, op.b, "-", kAdd); }
  CExpr visitMul(const Mul& op, const Expr&) override { return arith(op.dtype, op.a, op.b, "*", kMul); }
  CExpr visitDiv(const Div& op, const Expr&) override {
    // Division cannot leave the int32 range (INT32_MIN / -1 is undefined in C and the IR).
    if (isHalf(op.dtype)) return infix(op.dtype, op.a, op.b, "/", kMul);
    // x86 traps on INT_MIN / -1; the IR wraps it to INT_MIN: a divisor that may be -1
    // goes through a helper (-a wraps under -fwrapv).
    auto divisor = asConstInt(op.b);
    if (op.dtype.isInt() && (!divisor || *divisor == -1))
      return helperCall("div", op.dtype, "return b == -1 ? -a : a / b;", {op.a, op.b});
    CExpr x = print(op.a), y = print(op.b);
    CExpr c = joined(op.dtype, x, y, "/", kMul);
    c.wide = op.dtype == DataType::int32() && (x.wide || y.wide);
    return c;
  }
  CExpr visitFloorDiv(const FloorDiv& op, const Expr&) override {
    const std::string minusOne = op.dtype.isInt() ? "if (b == -1) return -a; " : "";
    return helperCall("floordiv", op.dtype,
                      minusOne + "return (a % b != 0 && ((a < 0) != (b < 0))) ? a / b - 1 : a / b;", {op.a, op.b});
  }
  CExpr visitFloorMod(const FloorMod& op, const Expr&) override {
    const std::string minusOne = op.dtype.isInt() ? "if (b == -1) return 0; " : "";
    return helperCall("floormod", op.dtype,
                      minusOne + "return (a % b != 0 && ((a < 0) != (b < 0))) ? a % b + b : a % b;", {op.a, op.b});
  }
  CExpr visitMin(const Min& op, const Expr&) override { return helperCall("min", op.dtype, "return a < b ? a : b;", {op.a, op.b}); }
  CExpr visitMax(const Max& op, const Expr&) override { return helperCall("max", op.dtype, "return a > b ? a : b;", {op.a, op.b}); }
  CExpr visitEQ(const EQ& op, const Expr&) override { return infix(op.dtype, op.a, op.b, "==", kEq); }
  CExpr visitNE(const NE& op, const Expr&) override { return infix(op.dtype, op.a, op.b, "!=", kEq); }
  CExpr visitLT(const LT& op, const Expr&) override { return infix(op.dtype, op.a, op.b, "<", kRel); }
  CExpr visitLE(const LE& op, const Expr&) override { return infix(op.dtype, op.a, op.b, "<=", kRel); }
  CExpr visitGT(const GT& op, const Expr&) override { return infix(op.dtype, op.a, op.b, ">", kRel); }
  CExpr visitGE(const GE& op, const Expr&) override { return infix(op.dtype, op.a, op.b, ">=", kRel); }
  CExpr visitAnd(const And& op, const Expr&) override { return infix(op.dtype, op.a, op.b, "&&", kAnd); }
  CExpr visitOr(const Or& op, const Expr&) override { return infix(op.dtype, op.a, op.b, "||", kOr); }
  CExpr visitNot(const Not& op, const Expr&) override { return {"!" + paren(print(op.a), kUnary), kUnary}; }
  CExpr visitSelect(const Select& op, const Expr&) override {
    CExpr t = print(op.trueValue), f = print(op.falseValue);
    return {paren(print(op.condition), kOr) + " ? " + paren(t, kOr) + " : " + paren(f, kTernary), kTernary,
            t.wide || f.wide};
  }
  CExpr visitCast(const Cast& op, const Expr&) override {
    DataType to = op.dtype.element();
    CExpr v = print(op.value);
    if (to.isBool()) return {paren(v, kEq + 1) + " != 0", kEq};
    return {"(" + cType(to) + ")" + paren(v, kUnary), kUnary};
  }
  CExpr visitCall(const Call& op, const Expr&) override {
    DataType t = op.dtype.element();
    std::string suffix = t.bits() == 64 ? "" : "f";
    std::string one = t.bits() == 64 ? "1.0" : "1.0f";
    std::vector<std::string> args;
    for (const auto& a : op.args) args.push_back(isHalf(t) ? asFloat(a) : print(a).text);
    auto fn = [&](const std::string& name) {
      std::string s = name + suffix + "(";
      for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
      return s + ")";
    };
    std::string text;
    int prec = kAtom;
    switch (op.op) {
    case CallOp::Rsqrt: text = one + " / " + fn("sqrt"); prec = kMul; break;
    case CallOp::Sigmoid:
      text = one + " / (" + one + " + exp" + suffix + "(-" + (isHalf(t) ? args[0] : paren(print(op.args[0]), kUnary)) + "))";
      prec = kMul;
      break;
    default: text = fn(callOpName(op.op)); break;
    }
    if (isHalf(t)) return {"(_Float16)(" + text + ")", kUnary};
    return {text, prec};
  }
  CExpr visitBufferLoad(const BufferLoad& op, const Expr&) override {
    return {m_names.of(op.buffer.get(), op.buffer->name) + "[" + printIndex(op.indices[0]).text + "]", kAtom};
  }
  CExpr visitRamp(const Ramp& op, const Expr&) override {
    LS_ASSERT(!m_lane.empty(), "cpu-c: a Ramp outside a vector statement");
    // The lane variable is int64_t: like a loop variable, wide for an int32 Ramp.
    const bool wide = op.dtype.element() == DataType::int32();
    std::string lane = isConstInt(op.stride, 1) ? m_lane : m_lane + " * " + paren(print(op.stride), kMul + 1);
    CExpr c = isConstInt(op.base, 0) ? CExpr{lane, isConstInt(op.stride, 1) ? kAtom : kMul}
                                     : CExpr{paren(print(op.base), kAdd) + " + " + lane, kAdd};
    if (!wide || m_index) return {c.text, c.prec, wide};
    return {"(int32_t)(" + c.text + ")", kUnary};
  }
  CExpr visitBroadcast(const Broadcast& op, const Expr&) override { return print(op.value); }

  int m_threads;
  int m_indent = 0;
  bool m_index = false;                     ///< printing an index (printIndex)
  std::string m_kernelName;
  std::string m_functions; ///< outlined parallel loop bodies, in definition order
  int m_outlined = 0;
  std::vector<Span> m_spans; ///< one per For printed (the loops' lines)
  int m_region = 0;          ///< where m_out goes: 0 the kernel, > 0 an outlined body
  int m_regions = 0;
  std::set<const ExprNode*> m_wideVars;     ///< int32 loop variables declared int64_t
  std::string m_out;
  std::string m_lane;     ///< the lane variable while a vector statement is printed
  std::string m_laneName; ///< the function's lane variable name, once one is needed
  Names m_names;
  std::map<std::string, std::string> m_helpers;
};

} // namespace

std::string emitC(const LoweredFunc& func, int threads, std::vector<LoopLines>* loops) {
  Emitter emitter(threads);
  return emitter.run(func, loops);
}

} // namespace loopscape::codegen::cpu_c
