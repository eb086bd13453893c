// Code generation from an isl schedule tree back to a PrimFunc (see ast_to_tir.h).
#include "core/poly/ast_to_tir.h"

#include "core/poly/isl_util.h"

#include "core/ir/op.h"
#include "core/ir/printer.h"
#include "core/ir/simplify.h"
#include "core/ir/structural_equal.h"
#include "core/ir/substitute.h"
#include "core/ir/visitor.h"

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace loopscape::poly {

using namespace detail;

namespace {

constexpr const char* kBandMark = "ls.band";

struct CodegenError {
  Diagnostic diagnostic;
};

[[noreturn]] void fail(std::string message) {
  throw CodegenError{Diagnostic::error("poly.codegen", std::move(message))};
}

// ---- band member names --------------------------------------------------------------

/// The loop a quasi-affine piece equals (`S[i, j] -> [(j)]` gives "j"), or the loops it
/// combines.
struct AffShape {
  bool single = false;
  std::vector<std::string> dims;
};

AffShape affShape(isl_aff* aff) {
  AffShape out;
  const isl_size n = isl_aff_dim(aff, isl_dim_in);
  const isl_size nd = isl_aff_dim(aff, isl_dim_div);
  int nonzero = 0;
  bool unit = true;
  for (isl_size d = 0; d < n; ++d) {
    isl_val* v = isl_aff_get_coefficient_val(aff, isl_dim_in, d);
    const bool zero = isl_val_is_zero(v) == isl_bool_true;
    const bool one = isl_val_is_one(v) == isl_bool_true;
    isl_val_free(v);
    if (zero) continue;
    ++nonzero;
    unit = unit && one;
    const char* name = isl_aff_get_dim_name(aff, isl_dim_in, d);
    out.dims.push_back(name ? name : fmt::format("d{}", d));
  }
  isl_val* c = isl_aff_get_constant_val(aff);
  const bool zeroConst = isl_val_is_zero(c) == isl_bool_true;
  isl_val_free(c);
  out.single = nonzero == 1 && unit && zeroConst && nd == 0;
  return out;
}

std::string memberName(const isl::union_pw_aff& upa) {
  std::vector<AffShape> shapes;
  isl_union_pw_aff_foreach_pw_aff(
      upa.get(),
      [](isl_pw_aff* pa, void* user) -> isl_stat {
        isl_pw_aff_foreach_piece(
            pa,
            [](isl_set* set, isl_aff* aff, void* u) -> isl_stat {
              static_cast<std::vector<AffShape>*>(u)->push_back(affShape(aff));
              isl_set_free(set);
              isl_aff_free(aff);
              return isl_stat_ok;
            },
            user);
        isl_pw_aff_free(pa);
        return isl_stat_ok;
      },
      &shapes);
  if (shapes.empty()) return "c";
  const bool allSingle = std::all_of(shapes.begin(), shapes.end(), [&](const AffShape& s) {
    return s.single && s.dims == shapes.front().dims;
  });
  if (allSingle) return shapes.front().dims.front();
  std::vector<std::string> dims;
  for (const auto& s : shapes)
    for (const auto& d : s.dims)
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) dims.push_back(d);
  if (dims.empty()) return "c";
  std::string out;
  for (const auto& d : dims) out += (out.empty() ? "" : "_") + d;
  return out;
}

// ---- translation context ------------------------------------------------------------

/// What at_each_domain records for one user node: the statement and, as isl AST
/// expressions over the AST iterators, its block iterator values and its loop values.
struct InstanceInfo {
  int statement = -1;
  std::vector<isl::ast_expr> iterators;
  std::vector<isl::ast_expr> loops; ///< only for statements that are not exact (Scop)
};

struct BandFrame {
  int table = -1; ///< index into Generator::m_bandNames
  int startDepth = 0;
};

class Generator {
public:
  Generator(const ir::PrimFunc& func, const Scop& scop) : m_func(func), m_scop(scop) {
    for (std::size_t i = 0; i < scop.statements.size(); ++i) m_statementIndex[scop.statements[i].name] = int(i);
    // Parameters: the free integer Vars of the function, by name.
    auto collect = [&](const ir::Expr& e) {
      if (const auto* v = e.as<ir::Var>(); v && !m_params.contains(v->name)) m_params.emplace(v->name, e);
    };
    for (const auto& p : func.params)
      for (const auto& d : p->shape) ir::forEachExpr(d, collect);
    ir::forEachExpr(func.body, collect);
    m_loopType = regeneratedLoopType(func);
  }

  ir::PrimFunc run(const isl::schedule& schedule);

private:
  isl::schedule annotateBands(const isl::schedule& schedule);
  isl::schedule_node annotateNode(isl::schedule_node node);

  // isl callbacks
  static isl_ast_node* atEachDomain(isl_ast_node* node, isl_ast_build* build, void* user);
  static int scheduleDepth(isl_ast_build* build);
  static isl_id* beforeEachFor(isl_ast_build* build, void* user);
  static isl_stat beforeEachMark(isl_id* mark, isl_ast_build* build, void* user);
  static isl_ast_node* afterEachMark(isl_ast_node* node, isl_ast_build* build, void* user);

  // AST -> IR
  ir::Expr expr(const isl::ast_expr& e);
  ir::Expr intConst(std::int64_t v) const { return ir::intImm(v, m_loopType); }
  ir::Stmt node(const isl::ast_node& n);
  ir::Stmt forNode(const isl::ast_node& n);
  ir::Stmt ifNode(const isl::ast_node& n);
  ir::Stmt blockNode(const isl::ast_node& n);
  ir::Stmt markNode(const isl::ast_node& n);
  ir::Stmt userNode(const isl::ast_node& n);
  const InstanceInfo& info(const isl::ast_node& user);
  std::vector<ir::Expr> values(const std::vector<isl::ast_expr>& exprs, const std::vector<ir::IterVar>& iters);

  // reductions
  bool firstUpdateAtReduceMin(int update);
  ir::Stmt updateBlockWithoutInit(int statement);
  ir::Stmt initBlock(int statement);
  void countUsers(const isl::ast_node& n);

  const ir::PrimFunc& m_func;
  const Scop& m_scop;
  isl::schedule m_schedule;
  std::map<std::string, int> m_statementIndex;
  std::map<std::string, ir::Expr> m_params;
  ir::DataType m_loopType = ir::DataType::int32();

  std::vector<std::vector<std::string>> m_bandNames;
  std::vector<int> m_bandStarts; ///< per band: band members above it (its first member's schedule dimension)
  std::vector<BandFrame> m_bandStack;
  std::vector<std::unique_ptr<InstanceInfo>> m_infos;

  std::map<std::string, ir::Expr> m_env;    ///< isl iterator id -> its value
  std::vector<std::string> m_activeNames;   ///< loop names on the current path
  std::set<std::string> m_combineWithInit;  ///< update statements emitted with their T.init here
  std::map<int, int> m_userCount;           ///< statement -> number of AST user nodes
  std::map<int, ir::Stmt> m_initBlocks, m_updateBlocks;
  std::map<int, bool> m_firstAtMin;
  std::set<std::string> m_blockNames;
};

// ---- band annotation ----------------------------------------------------------------

isl::schedule_node Generator::annotateNode(isl::schedule_node node) {
  bool marked = false;
  if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_band &&
      isl_schedule_node_band_n_member(node.get()) > 0) {
    std::vector<std::string> names = bandMemberNames(node);
    const int index = static_cast<int>(m_bandNames.size());
    m_bandNames.push_back(std::move(names));
    m_bandStarts.push_back(static_cast<int>(isl_schedule_node_get_schedule_depth(node.get())));
    // Atomic loops: every statement gets one loop per band member (guards inside it)
    // instead of isl's default separation into loop pieces, which copies a statement
    // into several nests (a block name must stay unique, and a fused nest stays
    // readable), and which costs most of the AST build time.
    const int members = static_cast<int>(isl_schedule_node_band_n_member(node.get()));
    for (int i = 0; i < members; ++i)
      if (isl_schedule_node_band_member_get_ast_loop_type(node.get(), i) == isl_ast_loop_default)
        node = isl::manage(check(isl_schedule_node_band_member_set_ast_loop_type(node.release(), i, isl_ast_loop_atomic),
                                 "atomic loop type"));
    isl_id* id = isl_id_alloc(islContext().get(), kBandMark, reinterpret_cast<void*>(static_cast<std::intptr_t>(index)));
    node = isl::manage(check(isl_schedule_node_insert_mark(node.release(), id), "inserting a band mark"));
    node = node.child(0);
    marked = true;
  }
  const int n = static_cast<int>(isl_schedule_node_n_children(node.get()));
  for (int i = 0; i < n; ++i) {
    node = annotateNode(node.child(i));
    node = node.parent();
  }
  return marked ? node.parent() : node; // the node at the position this call started from
}

isl::schedule Generator::annotateBands(const isl::schedule& schedule) {
  return annotateNode(schedule.root()).schedule();
}

// ---- isl callbacks ------------------------------------------------------------------

isl_ast_node* Generator::atEachDomain(isl_ast_node* node, isl_ast_build* build, void* user) {
  auto* self = static_cast<Generator*>(user);
  isl_ast_expr* call = isl_ast_node_user_get_expr(node);
  isl_ast_expr* arg0 = call ? isl_ast_expr_op_get_arg(call, 0) : nullptr;
  isl_id* id = arg0 ? isl_ast_expr_id_get_id(arg0) : nullptr;
  std::string name = id && isl_id_get_name(id) ? isl_id_get_name(id) : "";
  isl_id_free(id);
  isl_ast_expr_free(arg0);
  isl_ast_expr_free(call);
  auto it = self->m_statementIndex.find(name);
  if (it == self->m_statementIndex.end()) return isl_ast_node_free(node);
  const ScopStatement& st = self->m_scop.statements[it->second];

  isl_union_map* sched = isl_ast_build_get_schedule(build);
  isl_map* m = isl_map_from_union_map(sched);
  isl_pw_multi_aff* inverse = isl_pw_multi_aff_from_map(isl_map_reverse(m));
  if (!inverse) return isl_ast_node_free(node);
  auto info = std::make_unique<InstanceInfo>();
  info->statement = it->second;
  isl_multi_pw_aff* iters = isl_multi_pw_aff_pullback_pw_multi_aff(st.iterValues.copy(), isl_pw_multi_aff_copy(inverse));
  const isl_size ni = isl_multi_pw_aff_dim(iters, isl_dim_out);
  for (isl_size i = 0; i < ni; ++i) {
    isl_ast_expr* e = isl_ast_build_expr_from_pw_aff(build, isl_multi_pw_aff_get_pw_aff(iters, i));
    if (!e) break;
    info->iterators.push_back(isl::manage(e));
  }
  isl_multi_pw_aff_free(iters);
  // The original loop values are only needed to re-state a predicate that could not be
  // modelled exactly (userNode): building them for every statement costs a third of the
  // AST build on tiled schedules.
  isl_size nl = 0;
  if (!st.exact) {
    isl_multi_pw_aff* loops = isl_multi_pw_aff_from_pw_multi_aff(isl_pw_multi_aff_copy(inverse));
    nl = isl_multi_pw_aff_dim(loops, isl_dim_out);
    for (isl_size i = 0; i < nl; ++i) {
      isl_ast_expr* e = isl_ast_build_expr_from_pw_aff(build, isl_multi_pw_aff_get_pw_aff(loops, i));
      if (!e) break;
      info->loops.push_back(isl::manage(e));
    }
    isl_multi_pw_aff_free(loops);
  }
  isl_pw_multi_aff_free(inverse);
  if (static_cast<isl_size>(info->iterators.size()) != ni || static_cast<isl_size>(info->loops.size()) != nl)
    return isl_ast_node_free(node);
  InstanceInfo* raw = info.get();
  self->m_infos.push_back(std::move(info));
  isl_id* annotation = isl_id_alloc(isl_ast_node_get_ctx(node), "ls.instance", raw);
  return isl_ast_node_set_annotation(node, annotation);
}

// The number of schedule dimensions (band members) outside the current point of the AST
// build, counted in the whole schedule tree. isl drops the dimensions that are fixed on
// the domain from the build's schedule space (a batch loop of extent 1; a tile loop with a
// single tile: `floor(c / 32)` for c < 32), so the space's size undercounts; each
// dimension's iterator id carries its position (generate() hands the build one id per
// dimension). A loop is named after member (depth - band start) of its band.
int Generator::scheduleDepth(isl_ast_build* build) {
  isl_space* sp = isl_ast_build_get_schedule_space(build);
  const isl_size n = isl_space_dim(sp, isl_dim_set);
  int depth = n > 0 ? static_cast<int>(n) : 0;
  if (n > 0) {
    isl_id* last = isl_space_get_dim_id(sp, isl_dim_set, unsigned(n - 1));
    if (last && isl_id_get_user(last))
      depth = static_cast<int>(reinterpret_cast<std::intptr_t>(isl_id_get_user(last))); // position + 1
    isl_id_free(last);
  }
  isl_space_free(sp);
  return depth;
}

isl_id* Generator::beforeEachFor(isl_ast_build* build, void* user) {
  auto* self = static_cast<Generator*>(user);
  const int depth = scheduleDepth(build) - 1;
  std::string name = fmt::format("c{}", depth);
  if (!self->m_bandStack.empty()) {
    const BandFrame& f = self->m_bandStack.back();
    const auto& names = self->m_bandNames[f.table];
    const int member = depth - f.startDepth;
    if (member >= 0 && member < static_cast<int>(names.size())) name = names[member];
  }
  return isl_id_alloc(isl_ast_build_get_ctx(build), name.c_str(), nullptr);
}

isl_stat Generator::beforeEachMark(isl_id* mark, isl_ast_build*, void* user) {
  auto* self = static_cast<Generator*>(user);
  const char* name = isl_id_get_name(mark);
  if (name && std::string_view(name) == kBandMark) {
    const int table = static_cast<int>(reinterpret_cast<std::intptr_t>(isl_id_get_user(mark)));
    self->m_bandStack.push_back({table, self->m_bandStarts[table]});
  }
  return isl_stat_ok;
}

isl_ast_node* Generator::afterEachMark(isl_ast_node* node, isl_ast_build*, void* user) {
  auto* self = static_cast<Generator*>(user);
  isl_id* id = isl_ast_node_mark_get_id(node);
  const char* name = id ? isl_id_get_name(id) : nullptr;
  if (name && std::string_view(name) == kBandMark && !self->m_bandStack.empty()) self->m_bandStack.pop_back();
  isl_id_free(id);
  return node;
}

// ---- expressions --------------------------------------------------------------------

/// An isl AST condition as a bool: isl writes a constant true disjunct as the integer 1
/// (`c2 <= 341 || 1`), C style, so an integer operand of a logical operator means `!= 0`.
ir::Expr condition(const ir::Expr& e) {
  if (e.dtype().isBool()) return e;
  if (auto v = ir::asConstInt(e)) return ir::boolImm(*v != 0);
  return e != ir::intImm(0, e.dtype());
}

ir::Expr Generator::expr(const isl::ast_expr& e) {
  isl_ast_expr* p = e.get();
  switch (isl_ast_expr_get_type(p)) {
  case isl_ast_expr_id: {
    isl_id* id = isl_ast_expr_id_get_id(p);
    std::string name = isl_id_get_name(id) ? isl_id_get_name(id) : "";
    isl_id_free(id);
    if (auto it = m_env.find(name); it != m_env.end()) return it->second;
    if (auto it = m_params.find(name); it != m_params.end()) {
      if (it->second.dtype() == m_loopType) return it->second;
      return ir::Cast::make(m_loopType, it->second);
    }
    fail(fmt::format("the isl AST names '{}', which is neither a loop nor a size parameter", name));
  }
  case isl_ast_expr_int: {
    isl_val* v = isl_ast_expr_int_get_val(p);
    // Every constant of the regenerated loops must fit their type: a skew factor or a
    // shift that large would wrap (and isl_val_get_num_si would not even see it).
    const int bits = m_loopType.bits();
    const long hi = bits >= 64 ? std::numeric_limits<long>::max() : (1L << (bits - 1)) - 1;
    isl_ctx* ctx = isl_val_get_ctx(v);
    isl_val* hiV = isl_val_int_from_si(ctx, hi);
    isl_val* loV = isl_val_int_from_si(ctx, -hi - 1);
    const bool fits = isl_val_le(v, hiV) == isl_bool_true && isl_val_ge(v, loV) == isl_bool_true;
    isl_val_free(hiV);
    isl_val_free(loV);
    if (!fits) {
      char* text = isl_val_to_str(v);
      std::string number = text ? text : "?";
      std::free(text);
      isl_val_free(v);
      fail(fmt::format("the transformed loops need the constant {}, which does not fit {} (the loops' type); use "
                       "smaller skew factors, shifts or tile sizes",
                       number, m_loopType.str()));
    }
    const long value = isl_val_get_num_si(v);
    isl_val_free(v);
    return intConst(value);
  }
  case isl_ast_expr_op: break;
  case isl_ast_expr_error: fail("isl produced an invalid AST expression");
  }
  const int n = static_cast<int>(isl_ast_expr_op_get_n_arg(p));
  std::vector<ir::Expr> a;
  for (int i = 0; i < n; ++i) a.push_back(expr(isl::manage(isl_ast_expr_op_get_arg(p, i))));
  auto fold = [&](auto op) {
    ir::Expr out = a.front();
    for (int i = 1; i < n; ++i) out = op(out, a[i]);
    return out;
  };
  switch (isl_ast_expr_op_get_type(p)) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then: return fold([](ir::Expr x, ir::Expr y) { return condition(x) && condition(y); });
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else: return fold([](ir::Expr x, ir::Expr y) { return condition(x) || condition(y); });
  case isl_ast_expr_op_max: return fold([](ir::Expr x, ir::Expr y) { return ir::max(x, y); });
  case isl_ast_expr_op_min: return fold([](ir::Expr x, ir::Expr y) { return ir::min(x, y); });
  case isl_ast_expr_op_minus: return intConst(0) - a[0];
  case isl_ast_expr_op_add: return a[0] + a[1];
  case isl_ast_expr_op_sub: return a[0] - a[1];
  case isl_ast_expr_op_mul: return a[0] * a[1];
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_fdiv_q:
  case isl_ast_expr_op_pdiv_q: return ir::floordiv(a[0], a[1]);
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r: return ir::floormod(a[0], a[1]);
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select: return ir::Select::make(condition(a[0]), a[1], a[2]);
  case isl_ast_expr_op_eq: return a[0] == a[1];
  case isl_ast_expr_op_le: return a[0] <= a[1];
  case isl_ast_expr_op_lt: return a[0] < a[1];
  case isl_ast_expr_op_ge: return a[0] >= a[1];
  case isl_ast_expr_op_gt: return a[0] > a[1];
  default: break;
  }
  fail("the isl AST holds an operation (call, access or member) that has no TensorIR form");
}

std::vector<ir::Expr> Generator::values(const std::vector<isl::ast_expr>& exprs, const std::vector<ir::IterVar>& iters) {
  std::vector<ir::Expr> out;
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    ir::Expr v = ir::simplify(expr(exprs[i]));
    if (i < iters.size() && iters[i].var.dtype() != v.dtype()) v = ir::Cast::make(iters[i].var.dtype(), v);
    out.push_back(v);
  }
  return out;
}

// ---- statements ---------------------------------------------------------------------

const InstanceInfo& Generator::info(const isl::ast_node& user) {
  isl_id* id = isl_ast_node_get_annotation(user.get());
  if (!id) fail("a statement of the isl AST has no instance information");
  auto* raw = static_cast<InstanceInfo*>(isl_id_get_user(id));
  isl_id_free(id);
  return *raw;
}

ir::Stmt Generator::node(const isl::ast_node& n) {
  switch (isl_ast_node_get_type(n.get())) {
  case isl_ast_node_for: return forNode(n);
  case isl_ast_node_if: return ifNode(n);
  case isl_ast_node_block: return blockNode(n);
  case isl_ast_node_mark: return markNode(n);
  case isl_ast_node_user: return userNode(n);
  case isl_ast_node_error: break;
  }
  fail("isl produced an invalid AST node");
}

ir::Stmt Generator::forNode(const isl::ast_node& n) {
  isl::ast_expr iterator = isl::manage(isl_ast_node_for_get_iterator(n.get()));
  isl_id* itId = isl_ast_expr_id_get_id(iterator.get());
  const std::string itName = isl_id_get_name(itId);
  isl_id_free(itId);
  ir::Expr init = ir::simplify(expr(isl::manage(isl_ast_node_for_get_init(n.get()))));
  isl::ast_node body = isl::manage(isl_ast_node_for_get_body(n.get()));
  const auto previous = m_env.find(itName);
  const bool hadPrevious = previous != m_env.end();
  const ir::Expr saved = hadPrevious ? previous->second : ir::Expr();
  auto restore = [&] {
    if (hadPrevious)
      m_env[itName] = saved;
    else
      m_env.erase(itName);
  };
  if (isl_ast_node_for_is_degenerate(n.get()) == isl_bool_true) {
    m_env[itName] = init;
    ir::Stmt out = node(body);
    restore();
    return out;
  }
  // Loop name from the band member (annotation), unique along the path.
  std::string name = itName;
  if (isl_id* ann = isl_ast_node_get_annotation(n.get())) {
    if (isl_id_get_name(ann)) name = isl_id_get_name(ann);
    isl_id_free(ann);
  }
  {
    const std::string base = name;
    for (int k = 1; std::find(m_activeNames.begin(), m_activeNames.end(), name) != m_activeNames.end(); ++k)
      name = fmt::format("{}_{}", base, k);
  }
  isl::ast_expr incE = isl::manage(isl_ast_node_for_get_inc(n.get()));
  isl_val* incV = isl_ast_expr_get_type(incE.get()) == isl_ast_expr_int ? isl_ast_expr_int_get_val(incE.get()) : nullptr;
  if (!incV) fail("a loop of the isl AST has a non-constant step");
  const long step = isl_val_get_num_si(incV);
  isl_val_free(incV);

  // Upper bound (inclusive) from the condition: `it <= ub`, `it < ub`, conjunctions.
  ir::Expr itVar = ir::Var::make(name, m_loopType);
  std::function<ir::Expr(isl_ast_expr*)> upper = [&](isl_ast_expr* c) -> ir::Expr {
    if (isl_ast_expr_get_type(c) != isl_ast_expr_op) fail("unsupported loop condition in the isl AST");
    const auto op = isl_ast_expr_op_get_type(c);
    isl::ast_expr lhs = isl::manage(isl_ast_expr_op_get_arg(c, 0));
    isl::ast_expr rhs = isl::manage(isl_ast_expr_op_get_arg(c, 1));
    if (op == isl_ast_expr_op_and || op == isl_ast_expr_op_and_then) return ir::min(upper(lhs.get()), upper(rhs.get()));
    const bool isIt = isl_ast_expr_get_type(lhs.get()) == isl_ast_expr_id &&
                      isl_ast_expr_is_equal(lhs.get(), iterator.get()) == isl_bool_true;
    if (!isIt) fail("unsupported loop condition in the isl AST (the iterator is not on the left)");
    if (op == isl_ast_expr_op_le) return expr(rhs);
    if (op == isl_ast_expr_op_lt) return expr(rhs) - intConst(1);
    fail("unsupported loop condition in the isl AST");
  };
  isl::ast_expr cond = isl::manage(isl_ast_node_for_get_cond(n.get()));
  ir::Expr ub = upper(cond.get());
  ir::Expr extent;
  if (step == 1) {
    extent = ir::simplify(ub - init + intConst(1));
    m_env[itName] = itVar;
  } else {
    extent = ir::simplify(ir::floordiv(ub - init + intConst(step), intConst(step)));
    m_env[itName] = init + itVar * intConst(step);
  }
  ir::Expr loopMin = step == 1 ? init : intConst(0);
  m_activeNames.push_back(name);
  ir::Stmt b = node(body);
  m_activeNames.pop_back();
  restore();
  if (!b) return {};
  return ir::For::make(itVar, loopMin, extent, ir::ForKind::Serial, b);
}

ir::Stmt Generator::ifNode(const isl::ast_node& n) {
  ir::Expr cond = ir::simplify(condition(expr(isl::manage(isl_ast_node_if_get_cond(n.get())))));
  ir::Stmt thenS = node(isl::manage(isl_ast_node_if_get_then_node(n.get())));
  ir::Stmt elseS;
  if (isl_ast_node_if_has_else_node(n.get()) == isl_bool_true)
    elseS = node(isl::manage(isl_ast_node_if_get_else_node(n.get())));
  if (!thenS && !elseS) return {};
  if (!thenS) return ir::IfThenElse::make(ir::Not::make(cond), elseS);
  if (!elseS) {
    if (const auto* r = thenS.as<ir::BlockRealize>()) {
      ir::Expr pred = ir::isConstInt(r->predicate, 1) ? cond : (cond && r->predicate);
      return ir::BlockRealize::make(r->iterValues, pred, r->block);
    }
  }
  return ir::IfThenElse::make(cond, thenS, elseS);
}

void Generator::countUsers(const isl::ast_node& root) {
  isl_ast_node_foreach_descendant_top_down(
      root.get(),
      [](isl_ast_node* n, void* user) -> isl_bool {
        auto* self = static_cast<Generator*>(user);
        if (isl_ast_node_get_type(n) == isl_ast_node_user) {
          isl_id* id = isl_ast_node_get_annotation(n);
          if (id) {
            self->m_userCount[static_cast<InstanceInfo*>(isl_id_get_user(id))->statement] += 1;
            isl_id_free(id);
          }
        }
        return isl_bool_true;
      },
      this);
}

bool Generator::firstUpdateAtReduceMin(int update) {
  if (auto it = m_firstAtMin.find(update); it != m_firstAtMin.end()) return it->second;
  bool ok = false;
  const ScopStatement& up = m_scop.statements[update];
  const ScopStatement* init = m_scop.findStatement(up.name + "_init");
  if (init && init->isInit) {
    try {
      isl::union_map all = m_schedule.get_map();
      isl::union_map su = all.intersect_domain(isl::union_set(up.domain));
      isl::map s = isl::manage(check(isl_map_from_union_map(su.copy()), "update schedule"));
      // { S[loops] -> [spatial iterators] }
      isl::map values = up.iterValues.as_map();
      for (int i = static_cast<int>(up.iterators.size()) - 1; i >= 0; --i)
        if (up.iterators[i].kind == ir::IterKind::Reduce)
          values = isl::manage(check(isl_map_project_out(values.copy(), isl_dim_out, i, 1), "projection"));
      isl::map first = values.reverse().apply_range(s).lexmin();
      isl::set firstInstances = first.apply_range(s.reverse()).range();
      isl::set atMin = isl::manage(check(isl_set_set_tuple_name(init->domain.copy(), up.name.c_str()), "tuple"));
      ok = firstInstances.is_subset(atMin);
    } catch (const isl::exception&) {
      ok = false;
    } catch (const IslError&) {
      ok = false;
    }
  }
  m_firstAtMin[update] = ok;
  return ok;
}

ir::Stmt Generator::updateBlockWithoutInit(int statement) {
  if (auto it = m_updateBlocks.find(statement); it != m_updateBlocks.end()) return it->second;
  const auto& block = *m_scop.statements[statement].block.as<ir::Block>();
  std::vector<ir::BufferRegion> reads;
  for (const auto& w : block.writes)
    if (std::none_of(block.reads.begin(), block.reads.end(), [&](const auto& r) { return r.buffer.sameAs(w.buffer); }))
      reads.push_back(w);
  reads.insert(reads.end(), block.reads.begin(), block.reads.end());
  ir::Stmt out = ir::Block::make(block.name, block.iterVars, reads, block.writes, block.body, {}, block.allocBuffers,
                                 block.annotations);
  m_updateBlocks[statement] = out;
  return out;
}

ir::Stmt Generator::initBlock(int statement) {
  if (auto it = m_initBlocks.find(statement); it != m_initBlocks.end()) return it->second;
  const ScopStatement& st = m_scop.statements[statement];
  const auto& block = *st.block.as<ir::Block>();
  std::vector<ir::IterVar> iters;
  ir::VarMap map;
  for (const auto& iv : st.iterators) {
    ir::Expr v = ir::Var::make(iv.var.as<ir::Var>()->name, iv.var.dtype());
    iters.push_back({v, iv.dom, iv.kind});
    map[iv.var.get()] = v;
  }
  std::vector<ir::BufferRegion> writes;
  for (const auto& w : block.writes) {
    ir::BufferRegion r{w.buffer, {}};
    for (const auto& rg : w.region) r.region.push_back({ir::substitute(rg.min, map), ir::substitute(rg.extent, map)});
    writes.push_back(std::move(r));
  }
  std::string name = block.name + "_init";
  for (int k = 1; m_blockNames.contains(name); ++k) name = fmt::format("{}_init_{}", block.name, k);
  m_blockNames.insert(name);
  ir::Stmt out = ir::Block::make(name, iters, {}, writes, ir::substitute(block.init, map), {}, {}, block.annotations);
  m_initBlocks[statement] = out;
  return out;
}

ir::Stmt Generator::userNode(const isl::ast_node& n) {
  const InstanceInfo& in = info(n);
  const ScopStatement& st = m_scop.statements[in.statement];
  ir::Expr predicate = ir::boolImm(true);
  if (!st.exact) {
    // The original predicate could not be modelled exactly: keep it, over the new loops.
    const auto& realize = *st.realize.as<ir::BlockRealize>();
    if (!ir::isConstInt(realize.predicate, 1)) {
      ir::VarMap map;
      for (std::size_t i = 0; i < st.loops.size() && i < in.loops.size(); ++i) {
        const auto& f = *m_scop.loops[st.loops[i]].loop.as<ir::For>();
        map[f.loopVar.get()] = ir::simplify(expr(in.loops[i]));
      }
      predicate = ir::substitute(realize.predicate, map);
    }
  }
  if (st.isInit) {
    if (const ScopStatement* up = m_scop.findStatement(st.blockName);
        up && m_combineWithInit.contains(up->name) && st.block.sameAs(up->block))
      return {}; // runs as the T.init of its update block
    ir::Stmt b = initBlock(in.statement);
    return ir::BlockRealize::make(values(in.iterators, b.as<ir::Block>()->iterVars), predicate, b);
  }
  const auto& block = *st.block.as<ir::Block>();
  ir::Stmt b = st.block;
  if (block.init && !m_combineWithInit.contains(st.name)) b = updateBlockWithoutInit(in.statement);
  return ir::BlockRealize::make(values(in.iterators, block.iterVars), predicate, b);
}

ir::Stmt Generator::blockNode(const isl::ast_node& n) {
  isl::ast_node_list children = isl::manage(isl_ast_node_block_get_children(n.get()));
  std::vector<ir::Stmt> out;
  for (int i = 0; i < static_cast<int>(children.size()); ++i)
    if (ir::Stmt s = node(children.at(i))) out.push_back(s);
  if (out.empty()) return {};
  return ir::SeqStmt::make(std::move(out));
}

ir::Stmt Generator::markNode(const isl::ast_node& n) {
  isl_id* id = isl_ast_node_mark_get_id(n.get());
  const std::string name = id && isl_id_get_name(id) ? isl_id_get_name(id) : "";
  isl_id_free(id);
  ir::Stmt body = node(isl::manage(isl_ast_node_mark_get_node(n.get())));
  if (!body) return {};
  ir::ForKind kind = ir::ForKind::Serial;
  std::string tag;
  if (name == "parallel")
    kind = ir::ForKind::Parallel;
  else if (name == "vectorized" || name == "vectorize")
    kind = ir::ForKind::Vectorized;
  else if (name == "unroll" || name == "unrolled")
    kind = ir::ForKind::Unrolled;
  else if (name.starts_with("thread_binding(") && name.ends_with(")")) {
    kind = ir::ForKind::ThreadBinding;
    tag = name.substr(15, name.size() - 16);
  } else
    return body;
  auto apply = [&](const ir::Stmt& s) -> ir::Stmt {
    if (const auto* f = s.as<ir::For>())
      return ir::For::make(f->loopVar, f->min, f->extent, kind, f->body, tag, f->annotations);
    return s;
  };
  if (const auto* seq = body.as<ir::SeqStmt>()) {
    std::vector<ir::Stmt> items;
    for (const auto& s : seq->seq) items.push_back(apply(s));
    return ir::SeqStmt::make(std::move(items));
  }
  return apply(body);
}

} // namespace

namespace {

ir::PrimFunc Generator::run(const isl::schedule& schedule) {
  m_schedule = schedule;
  {
    struct Names final : ir::StmtVisitor {
      std::set<std::string>* names;
      void visitBlock(const ir::Block& op, const ir::Stmt& self) override {
        names->insert(op.name);
        StmtVisitor::visitBlock(op, self);
      }
    } v;
    v.names = &m_blockNames;
    v(m_func.body);
  }
  isl::schedule annotated = annotateBands(schedule);
  isl_ctx* ctx = islContext().get();
  isl_ast_build* build = isl_ast_build_from_context(m_scop.context.copy());
  // One iterator id per schedule dimension, named as isl names them (c0, c1, ...), its user
  // pointer the position + 1 (scheduleDepth).
  {
    int dims = 0; // the deepest band's last member (not isl_schedule_get_map: 15 % of a tiled codegen)
    isl_schedule_foreach_schedule_node_top_down(
        annotated.get(),
        [](isl_schedule_node* node, void* user) {
          if (isl_schedule_node_get_type(node) == isl_schedule_node_band) {
            int* d = static_cast<int*>(user);
            *d = std::max(*d, static_cast<int>(isl_schedule_node_get_schedule_depth(node)) +
                                  static_cast<int>(isl_schedule_node_band_n_member(node)));
          }
          return isl_bool_true;
        },
        &dims);
    isl_id_list* iterators = isl_id_list_alloc(ctx, dims);
    for (int d = 0; d < dims; ++d)
      iterators = isl_id_list_add(iterators, isl_id_alloc(ctx, fmt::format("c{}", d).c_str(),
                                                          reinterpret_cast<void*>(static_cast<std::intptr_t>(d + 1))));
    build = isl_ast_build_set_iterators(build, iterators);
  }
  build = isl_ast_build_set_at_each_domain(build, &Generator::atEachDomain, this);
  build = isl_ast_build_set_before_each_for(build, &Generator::beforeEachFor, this);
  build = isl_ast_build_set_before_each_mark(build, &Generator::beforeEachMark, this);
  build = isl_ast_build_set_after_each_mark(build, &Generator::afterEachMark, this);
  check(build, "isl_ast_build");
  const int detect = isl_options_get_ast_build_detect_min_max(ctx);
  isl_options_set_ast_build_detect_min_max(ctx, 1);
  isl_ast_node* raw = isl_ast_build_node_from_schedule(build, annotated.copy());
  isl_options_set_ast_build_detect_min_max(ctx, detect);
  isl_ast_build_free(build);
  isl::ast_node ast = isl::manage(check(raw, "isl_ast_build_node_from_schedule"));
  countUsers(ast);
  // A reduction whose init and update each appear once, and whose first update of every
  // spatial point has its reduce iterators at their minimum, is re-emitted with its T.init
  // (the init then runs right before that first update: nothing else touches the element
  // in between in any schedule that respects the original dependences).
  for (std::size_t i = 0; i < m_scop.statements.size(); ++i) {
    const ScopStatement& st = m_scop.statements[i];
    if (st.isInit || !st.block.as<ir::Block>()->init) continue;
    const ScopStatement* init = m_scop.findStatement(st.name + "_init");
    if (!init || !init->block.sameAs(st.block)) continue;
    const int initIndex = m_statementIndex[init->name];
    if (m_userCount[int(i)] == 1 && m_userCount[initIndex] == 1 && firstUpdateAtReduceMin(int(i)))
      m_combineWithInit.insert(st.name);
  }
  ir::Stmt body = node(ast);

  // The root block: the original one with the new body; buffers allocated by scope
  // blocks that are not re-emitted move to it.
  const auto& rootRealize = *m_func.body.as<ir::BlockRealize>();
  const ir::Block& root = m_func.rootBlock();
  std::vector<ir::Buffer> alloc = root.allocBuffers;
  // Only blocks that are not statements (scopes) lose their allocations; statements keep theirs.
  std::set<const ir::StmtNode*> statementBlocks;
  for (const auto& s : m_scop.statements) statementBlocks.insert(s.block.get());
  {
    struct V final : ir::StmtVisitor {
      std::vector<ir::Buffer>* alloc;
      const ir::Block* root;
      std::set<const ir::StmtNode*>* statements;
      void visitBlockRealize(const ir::BlockRealize& op, const ir::Stmt& self) override {
        const ir::Block& b = op.blockNode();
        if (&b != root && !statements->contains(op.block.get()))
          for (const auto& buf : b.allocBuffers)
            if (std::none_of(alloc->begin(), alloc->end(), [&](const ir::Buffer& x) { return x.sameAs(buf); }))
              alloc->push_back(buf);
        StmtVisitor::visitBlockRealize(op, self);
      }
    } v;
    v.alloc = &alloc;
    v.root = &root;
    v.statements = &statementBlocks;
    v(m_func.body);
  }
  if (!body) body = ir::Evaluate::make(ir::intImm(0));
  ir::Stmt newRoot = ir::Block::make(root.name, root.iterVars, root.reads, root.writes, body, root.init, alloc,
                                     root.annotations);
  ir::PrimFunc out = m_func;
  out.body = ir::BlockRealize::make(rootRealize.iterValues, rootRealize.predicate, newRoot);
  return out;
}

} // namespace

std::vector<std::string> bandMemberNames(const isl::schedule_node& band) {
  std::vector<std::string> names;
  isl::multi_union_pw_aff mupa = band.as<isl::schedule_node_band>().get_partial_schedule();
  const int n = static_cast<int>(isl_multi_union_pw_aff_dim(mupa.get(), isl_dim_set));
  for (int i = 0; i < n; ++i) {
    isl_space* sp = isl_multi_union_pw_aff_get_space(mupa.get());
    const bool hasId = isl_space_has_dim_id(sp, isl_dim_set, i) == isl_bool_true;
    isl_space_free(sp);
    if (hasId) {
      isl_id* id = isl_multi_union_pw_aff_get_dim_id(mupa.get(), isl_dim_set, i);
      std::string name = isl_id_get_name(id) ? isl_id_get_name(id) : "";
      isl_id_free(id);
      if (!name.empty()) {
        names.push_back(name);
        continue;
      }
    }
    names.push_back(memberName(mupa.at(i)));
  }
  return names;
}

isl::schedule_node setBandMemberNames(const isl::schedule_node& band, const std::vector<std::string>& names) {
  isl_schedule_node* node = band.copy();
  const int n = static_cast<int>(isl_schedule_node_band_n_member(node));
  isl_multi_union_pw_aff* mupa = isl_schedule_node_band_get_partial_schedule(node);
  for (int i = 0; i < n && i < static_cast<int>(names.size()); ++i)
    mupa = isl_multi_union_pw_aff_set_dim_id(mupa, isl_dim_set, i, makeId(names[i]).release());
  const isl_bool permutable = isl_schedule_node_band_get_permutable(node);
  std::vector<isl_bool> coincident;
  std::vector<isl_ast_loop_type> types;
  for (int i = 0; i < n; ++i) {
    coincident.push_back(isl_schedule_node_band_member_get_coincident(node, i));
    types.push_back(isl_schedule_node_band_member_get_ast_loop_type(node, i));
  }
  node = isl_schedule_node_delete(node);
  node = isl_schedule_node_insert_partial_schedule(node, mupa);
  node = isl_schedule_node_band_set_permutable(node, permutable == isl_bool_true);
  for (int i = 0; i < n; ++i) {
    node = isl_schedule_node_band_member_set_coincident(node, i, coincident[i] == isl_bool_true);
    node = isl_schedule_node_band_member_set_ast_loop_type(node, i, types[i]);
  }
  return isl::manage(check(node, "renaming band members"));
}

ir::DataType regeneratedLoopType(const ir::PrimFunc& func) {
  struct V final : ir::StmtVisitor {
    std::optional<ir::DataType> type;
    void visitFor(const ir::For& op, const ir::Stmt& self) override {
      if (!type) type = op.loopVar.dtype();
      StmtVisitor::visitFor(op, self);
    }
  } v;
  v(func.body);
  return v.type.value_or(ir::DataType::int32());
}

Expected<ir::PrimFunc> generateFunc(const ir::PrimFunc& func, const Scop& scop, const isl::schedule& schedule) {
  isl_ctx* ctx = islContext().get();
  struct Quota {
    isl_ctx* ctx;
    explicit Quota(isl_ctx* c) : ctx(c) {
      isl_ctx_reset_error(ctx);
      isl_ctx_set_max_operations(ctx, kDefaultIslMaxOperations);
      isl_ctx_reset_operations(ctx);
    }
    ~Quota() { isl_ctx_set_max_operations(ctx, 0); }
  } quota(ctx);
  auto islFailure = [&](const std::string& what) -> Diagnostic {
    if (isl_ctx_last_error(ctx) == isl_error_quota)
      return Diagnostic::error("poly.quota", fmt::format("code generation for '{}' exceeded the bound of {} isl "
                                                         "operations; the schedule is too complex to generate",
                                                         func.name, kDefaultIslMaxOperations));
    return Diagnostic::error("poly.isl", "code generation failed in isl: " + what);
  };
  try {
    Generator g(func, scop);
    return g.run(schedule);
  } catch (const CodegenError& e) {
    return Unexpected(e.diagnostic);
  } catch (const isl::exception_quota&) {
    return Unexpected(Diagnostic::error("poly.quota", fmt::format("code generation for '{}' exceeded the bound of {} isl "
                                                                  "operations; the schedule is too complex to generate",
                                                                  func.name, kDefaultIslMaxOperations)));
  } catch (const isl::exception& e) {
    return Unexpected(islFailure(e.what()));
  } catch (const IslError& e) {
    return Unexpected(islFailure(e.what()));
  }
}

} // namespace loopscape::poly
