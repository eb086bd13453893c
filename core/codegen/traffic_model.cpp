// The traffic model of traffic_model.h: one walk over the lowered body builds a tree of
// loops, sequences and single statements whose accesses are affine forms split into the
// buffers' dimensions; footprints and traffic are then computed on that tree.
#include "core/codegen/traffic_model.h"

#include "core/ir/host_caches.h"
#include "core/ir/visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace loopscape::codegen {

namespace {

// Keys of affine terms: a loop's id (>= 0), -lanes (-2 ..) for the lanes of a Ramp, or
// kPseudoBase - i (<= kPseudoBase) for the i-th floordiv/floormod term (Model::pseudo).
using Terms = std::map<int, double>;
constexpr int kPseudoBase = -1'000'000;

/// floordiv(x, c) or floormod(x, c) of an affine x that is not an exact affine form:
/// a term whose extent depends on which of x's loops iterate (Model::extentAt).
struct Pseudo {
  bool mod = false;
  double modulus = 1;
  Terms inner;         ///< x's terms
  double constant = 0; ///< x's constant, in [0, modulus)
  friend bool operator==(const Pseudo&, const Pseudo&) = default;
};

struct Affine {
  Terms coef;
  double constant = 0;
  bool opaque = false;
  std::vector<int> opaqueKeys; ///< the loops (and lanes) an opaque index depends on
};

struct BufferInfo {
  std::vector<double> shape; ///< elements per dimension, at least one dimension
  double elemBytes = 4;
};

struct Access {
  int buffer = 0;
  std::vector<Terms> dims;     ///< per dimension: key -> |coefficient| in elements
  std::vector<double> offsets; ///< per dimension
  bool opaque = false;
  std::vector<int> opaqueKeys;
};

struct Node {
  enum class Kind { Loop, Seq, Leaf };
  Kind kind = Kind::Leaf;
  double extent = 1;               ///< a loop's trip count
  int depth = 0;                   ///< loops around the node
  std::size_t first = 0, last = 0; ///< its accesses, [first, last) of Model::accesses
  std::vector<Node> children;      ///< a loop: its body; a sequence: its statements
};

struct Model {
  std::vector<BufferInfo> buffers;
  std::vector<Access> accesses;
  std::vector<int> loopDepth;
  std::vector<double> loopExtent;
  std::vector<Pseudo> pseudo;
  double lineBytes = 64;
  double cacheBytes = 1 << 20;

  static bool isPseudo(int key) { return key <= kPseudoBase; }
  const Pseudo& pseudoOf(int key) const { return pseudo[static_cast<std::size_t>(kPseudoBase - key)]; }

  /// Whether term `key` takes more than one value inside a statement at `depth`.
  bool iterates(int key, int depth) const {
    if (isPseudo(key)) {
      const Terms& inner = pseudoOf(key).inner;
      return std::any_of(inner.begin(), inner.end(), [&](const auto& t) { return iterates(t.first, depth); });
    }
    if (key < 0) return true; // lanes
    const auto k = static_cast<std::size_t>(key);
    return loopDepth[k] >= depth && loopExtent[k] > 1;
  }

  /// The values term `key` takes inside a statement at `depth` (its loops inside it
  /// iterate): a loop's extent, the lanes, or for floordiv/floormod of x by c, from the
  /// span of x's iterating terms: floormod min(c, span + 1); floordiv floor(span / c) + 1
  /// when the rest of x is a known constant, else floor((span + c - 1) / c) + 1, at most
  /// the number of x's values.
  double extentAt(int key, int depth) const {
    if (!isPseudo(key)) return key < 0 ? -key : loopExtent[static_cast<std::size_t>(key)];
    const Pseudo& p = pseudoOf(key);
    double span = 0, count = 1;
    bool fixedRest = false;
    for (const auto& [k, c] : p.inner) {
      const double e = extentAt(k, depth);
      if (iterates(k, depth)) {
        span += std::abs(c) * (e - 1);
        count *= e;
      } else if (e > 1) {
        fixedRest = true;
      }
    }
    if (p.mod) return std::min(p.modulus, span + 1);
    const double steps =
        fixedRest ? std::floor((span + p.modulus - 1) / p.modulus) : std::floor((p.constant + span) / p.modulus);
    return std::min(count, steps + 1);
  }

  double fullLines(const BufferInfo& b) const {
    double lines = std::ceil(b.shape.back() * b.elemBytes / lineBytes);
    for (std::size_t d = 0; d + 1 < b.shape.size(); ++d)
      lines *= b.shape[d];
    return lines;
  }

  /// Lines touched by the accesses of `s` (traffic_model.h: footprint).
  double footprintLines(const Node& s) const {
    struct Group {
      const Access* access;
      std::vector<std::vector<double>> offsets; // distinct offsets per dimension
    };
    std::vector<Group> groups;
    std::map<int, double> perBuffer;
    std::map<int, bool> whole;
    for (std::size_t i = s.first; i < s.last; ++i) {
      const Access& a = accesses[i];
      perBuffer.try_emplace(a.buffer, 0.0);
      if (a.opaque) {
        if (std::any_of(a.opaqueKeys.begin(), a.opaqueKeys.end(), [&](int key) { return iterates(key, s.depth); }))
          whole[a.buffer] = true;
        else
          perBuffer[a.buffer] += 1; // one element somewhere: one line
        continue;
      }
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const Group& g) { return g.access->buffer == a.buffer && g.access->dims == a.dims; });
      if (it == groups.end()) {
        groups.push_back({&a, std::vector<std::vector<double>>(a.dims.size())});
        it = groups.end() - 1;
      }
      for (std::size_t d = 0; d < a.dims.size(); ++d)
        if (std::find(it->offsets[d].begin(), it->offsets[d].end(), a.offsets[d]) == it->offsets[d].end())
          it->offsets[d].push_back(a.offsets[d]);
    }
    for (const Group& g : groups) {
      const BufferInfo& b = buffers[static_cast<std::size_t>(g.access->buffer)];
      double lines = 1;
      const std::size_t n = g.access->dims.size();
      for (std::size_t d = 0; d < n; ++d) {
        double range = 1, product = 1;
        for (const auto& [key, c] : g.access->dims[d]) {
          if (!iterates(key, s.depth)) continue;
          const double extent = extentAt(key, s.depth);
          range += c * (extent - 1);
          product *= extent;
        }
        const auto [lo, hi] = std::minmax_element(g.offsets[d].begin(), g.offsets[d].end());
        range += *hi - *lo;
        product *= static_cast<double>(g.offsets[d].size());
        range = std::min(range, b.shape[d]);
        const double count = std::min({range, product, b.shape[d]});
        lines *= d + 1 < n ? count : std::min(count, std::ceil(range * b.elemBytes / lineBytes));
      }
      perBuffer[g.access->buffer] += lines;
    }
    double total = 0;
    for (const auto& [buffer, lines] : perBuffer) {
      const double full = fullLines(buffers[static_cast<std::size_t>(buffer)]);
      total += whole.contains(buffer) ? full : std::min(lines, full);
    }
    return total;
  }

  /// Bytes between the cache and memory of `s` (traffic_model.h: traffic).
  double traffic(const Node& s) const {
    if (s.kind == Node::Kind::Loop && s.extent <= 0) return 0;
    const double bytes = footprintLines(s) * lineBytes;
    if (bytes <= cacheBytes) return bytes;
    switch (s.kind) {
    case Node::Kind::Loop: {
      const Node& body = s.children.front();
      const double iterations = s.extent * traffic(body);
      // The loop streams, never costing more than its iterations one by one.
      if (footprintLines(body) * lineBytes <= cacheBytes) return std::min(bytes, iterations);
      return iterations;
    }
    case Node::Kind::Seq: {
      double sum = 0;
      for (const Node& child : s.children)
        sum += traffic(child);
      return sum;
    }
    case Node::Kind::Leaf: return bytes;
    }
    return bytes;
  }
};

class Collector {
public:
  Collector(Model& model, const ir::SizeBindings& sizes) : m_model(model), m_sizes(sizes) {}

  Node function(const LoweredFunc& f) {
    if (f.moreKernels.empty()) return kernel(f);
    Node seq;
    seq.kind = Node::Kind::Seq;
    seq.first = m_model.accesses.size();
    seq.children.push_back(kernel(f));
    for (const LoweredFunc& more : f.moreKernels)
      seq.children.push_back(kernel(more));
    seq.last = m_model.accesses.size();
    return seq;
  }

private:
  Node kernel(const LoweredFunc& f) {
    for (std::size_t i = 0; i < f.flatParams.size(); ++i)
      addBuffer(f.flatParams[i], i < f.params.size() ? f.params[i] : f.flatParams[i]);
    std::vector<std::pair<const ir::ExprNode*, double>> axes; // blockIdx outside threadIdx
    if (f.gpu)
      for (const char* level : {"blockIdx.", "threadIdx."})
        for (const ThreadAxis& axis : f.gpu->axes) {
          if (!axis.tag.starts_with(level) || axis.tag.size() != std::string_view(level).size() + 1) continue;
          const auto dim = static_cast<std::size_t>(axis.tag.back() - 'x');
          if (dim > 2) continue;
          const auto& extents = axis.tag.starts_with("block") ? f.gpu->grid : f.gpu->block;
          axes.emplace_back(axis.var.get(), static_cast<double>(extents[dim]));
        }
    return nest(axes, 0, f.body, 0);
  }

  Node nest(const std::vector<std::pair<const ir::ExprNode*, double>>& axes, std::size_t i, const ir::Stmt& body,
            int depth) {
    if (i == axes.size()) return walk(body, depth);
    Node loop;
    loop.kind = Node::Kind::Loop;
    loop.extent = axes[i].second;
    loop.depth = depth;
    loop.first = m_model.accesses.size();
    m_loopOf[axes[i].first] = newLoop(depth, loop.extent);
    loop.children.push_back(nest(axes, i + 1, body, depth + 1));
    loop.last = m_model.accesses.size();
    return loop;
  }

  int newLoop(int depth, double extent) {
    m_model.loopDepth.push_back(depth);
    m_model.loopExtent.push_back(extent);
    return static_cast<int>(m_model.loopDepth.size()) - 1;
  }

  /// `flat` is what the body uses; `shaped` gives the dimensions.
  void addBuffer(const ir::Buffer& flat, const ir::Buffer& shaped) {
    if (m_bufferOf.contains(flat.get())) return;
    BufferInfo info;
    info.elemBytes = std::max(1, flat->dtype.bytes() * flat->dtype.lanes());
    for (const ir::Expr& dim : shaped->shape)
      info.shape.push_back(std::max(1.0, eval(dim).value_or(1.0)));
    if (info.shape.empty()) info.shape.push_back(1);
    m_bufferOf[flat.get()] = static_cast<int>(m_model.buffers.size());
    m_model.buffers.push_back(std::move(info));
  }

  Node walk(const ir::Stmt& s, int depth) {
    Node node;
    node.depth = depth;
    node.first = m_model.accesses.size();
    switch (s.kind()) {
    case ir::StmtKind::For: {
      const auto& op = *s.as<ir::For>();
      node.kind = Node::Kind::Loop;
      node.extent = std::max(0.0, eval(op.extent).value_or(1.0));
      m_loopOf[op.loopVar.get()] = newLoop(depth, node.extent);
      node.children.push_back(walk(op.body, depth + 1));
      break;
    }
    case ir::StmtKind::SeqStmt:
      node.kind = Node::Kind::Seq;
      for (const ir::Stmt& child : s.as<ir::SeqStmt>()->seq)
        node.children.push_back(walk(child, depth));
      break;
    case ir::StmtKind::IfThenElse: {
      const auto& op = *s.as<ir::IfThenElse>();
      node.kind = Node::Kind::Seq;
      node.children.push_back(walk(op.thenCase, depth));
      if (op.elseCase.defined()) node.children.push_back(walk(op.elseCase, depth));
      break;
    }
    case ir::StmtKind::LetStmt: {
      const auto& op = *s.as<ir::LetStmt>();
      m_lets[op.var.get()] = op.value;
      return walk(op.body, depth);
    }
    case ir::StmtKind::Allocate: {
      const auto& op = *s.as<ir::Allocate>();
      if (op.buffer->scope == ir::MemoryScope::Global) addBuffer(op.buffer, op.buffer);
      return walk(op.body, depth);
    }
    case ir::StmtKind::BlockRealize: return walk(s.as<ir::BlockRealize>()->block, depth);
    case ir::StmtKind::Block: {
      const auto& op = *s.as<ir::Block>();
      node.kind = Node::Kind::Seq;
      if (op.init.defined()) node.children.push_back(walk(op.init, depth));
      node.children.push_back(walk(op.body, depth));
      break;
    }
    case ir::StmtKind::BufferStore: {
      const auto& op = *s.as<ir::BufferStore>();
      if (!op.indices.empty()) addAccess(op.buffer, op.indices.front());
      addLoads(op.value);
      for (const ir::Expr& index : op.indices)
        addLoads(index);
      break;
    }
    case ir::StmtKind::Evaluate: addLoads(s.as<ir::Evaluate>()->value); break;
    case ir::StmtKind::Assume: break;
    }
    node.last = m_model.accesses.size();
    return node;
  }

  void addLoads(const ir::Expr& e) {
    ir::forEachExpr(e, [&](const ir::Expr& x) {
      if (const auto* load = x.as<ir::BufferLoad>(); load && !load->indices.empty())
        addAccess(load->buffer, load->indices.front());
    });
  }

  void addAccess(const ir::Buffer& buffer, const ir::Expr& index) {
    auto it = m_bufferOf.find(buffer.get());
    if (it == m_bufferOf.end()) return; // local, shared or stack: not counted
    const BufferInfo& info = m_model.buffers[static_cast<std::size_t>(it->second)];
    Affine a = affineOf(index);
    Access access;
    access.buffer = it->second;
    access.opaque = a.opaque;
    access.opaqueKeys = std::move(a.opaqueKeys);
    const std::size_t n = info.shape.size();
    access.dims.resize(n);
    access.offsets.assign(n, 0.0);
    if (!access.opaque) {
      std::vector<double> strides(n, 1.0);
      for (std::size_t d = n - 1; d > 0; --d)
        strides[d - 1] = strides[d] * info.shape[d];
      for (const auto& [key, c] : a.coef) {
        const double magnitude = std::abs(c);
        if (magnitude == 0) continue;
        std::size_t dim = n - 1;
        for (std::size_t d = 0; d < n; ++d)
          if (strides[d] <= magnitude && std::fmod(magnitude, strides[d]) == 0) {
            dim = d;
            break;
          }
        access.dims[dim][key] += magnitude / strides[dim];
      }
      double rest = a.constant;
      for (std::size_t d = 0; d + 1 < n; ++d) {
        access.offsets[d] = std::trunc(rest / strides[d]);
        rest -= access.offsets[d] * strides[d];
      }
      access.offsets[n - 1] = rest;
    }
    m_model.accesses.push_back(std::move(access));
  }

  /// The affine form of an index (traffic_model.h); `opaque` where it is not one.
  Affine affineOf(const ir::Expr& e) const {
    Affine r;
    switch (e.kind()) {
    case ir::ExprKind::IntImm: r.constant = static_cast<double>(e.as<ir::IntImm>()->value); return r;
    case ir::ExprKind::Var: {
      if (auto it = m_loopOf.find(e.get()); it != m_loopOf.end()) {
        r.coef[it->second] = 1;
        return r;
      }
      if (auto it = m_lets.find(e.get()); it != m_lets.end()) return affineOf(it->second);
      if (auto value = eval(e)) {
        r.constant = *value;
        return r;
      }
      return opaque(e);
    }
    case ir::ExprKind::Cast: return affineOf(e.as<ir::Cast>()->value);
    case ir::ExprKind::Broadcast: return affineOf(e.as<ir::Broadcast>()->value);
    case ir::ExprKind::Add:
    case ir::ExprKind::Sub: {
      const bool add = e.is<ir::Add>();
      Affine a = affineOf(add ? e.as<ir::Add>()->a : e.as<ir::Sub>()->a);
      const Affine b = affineOf(add ? e.as<ir::Add>()->b : e.as<ir::Sub>()->b);
      if (a.opaque || b.opaque) return opaque(e);
      const double sign = add ? 1 : -1;
      a.constant += sign * b.constant;
      for (const auto& [key, c] : b.coef)
        if ((a.coef[key] += sign * c) == 0) a.coef.erase(key);
      return a;
    }
    case ir::ExprKind::Mul: {
      const Affine a = affineOf(e.as<ir::Mul>()->a), b = affineOf(e.as<ir::Mul>()->b);
      if (a.opaque || b.opaque || (!a.coef.empty() && !b.coef.empty())) return opaque(e);
      const Affine& form = a.coef.empty() ? b : a;
      const double factor = a.coef.empty() ? a.constant : b.constant;
      r.constant = form.constant * factor;
      if (factor != 0)
        for (const auto& [key, c] : form.coef)
          r.coef[key] = c * factor;
      return r;
    }
    case ir::ExprKind::Div:
    case ir::ExprKind::FloorDiv:
    case ir::ExprKind::FloorMod: {
      const bool mod = e.is<ir::FloorMod>();
      const ir::Expr& a = mod               ? e.as<ir::FloorMod>()->a
                          : e.is<ir::Div>() ? e.as<ir::Div>()->a
                                            : e.as<ir::FloorDiv>()->a;
      const ir::Expr& b = mod               ? e.as<ir::FloorMod>()->b
                          : e.is<ir::Div>() ? e.as<ir::Div>()->b
                                            : e.as<ir::FloorDiv>()->b;
      const Affine x = affineOf(a), d = affineOf(b);
      if (x.opaque || d.opaque || !d.coef.empty() || d.constant < 1 || d.constant != std::floor(d.constant))
        return opaque(e);
      return divMod(x, d.constant, mod);
    }
    case ir::ExprKind::Ramp: {
      const auto& ramp = *e.as<ir::Ramp>();
      r = affineOf(ramp.base);
      const Affine stride = affineOf(ramp.stride);
      if (r.opaque || stride.opaque || !stride.coef.empty()) return opaque(e);
      if (ramp.lanes > 1 && stride.constant != 0) r.coef[-ramp.lanes] = stride.constant;
      return r;
    }
    default: return opaque(e);
    }
  }

  /// floordiv(x, c) (mod false) or floormod(x, c) (mod true): x = hi + lo, hi the terms
  /// whose coefficients c divides (and c * floor(constant / c)); when lo stays in [0, c)
  /// over its loops' ranges, floordiv = hi / c and floormod = lo exactly; else lo's part
  /// is a floordiv/floormod term (Pseudo).
  Affine divMod(const Affine& x, double c, bool mod) const {
    Affine hi, lo;
    hi.constant = std::floor(x.constant / c) * c;
    lo.constant = x.constant - hi.constant;
    for (const auto& [key, coef] : x.coef)
      (std::fmod(coef, c) == 0 ? hi : lo).coef[key] = coef;
    double lowest = lo.constant, highest = lo.constant;
    for (const auto& [key, coef] : lo.coef)
      (coef > 0 ? highest : lowest) += coef * (m_model.extentAt(key, 0) - 1);
    Affine r;
    if (!mod) {
      r.constant = hi.constant / c;
      for (const auto& [key, coef] : hi.coef)
        r.coef[key] = coef / c;
    }
    if (lowest >= 0 && highest < c) {
      if (mod) return lo;
      return r;
    }
    Pseudo p{mod, c, lo.coef, lo.constant};
    auto it = std::find(m_model.pseudo.begin(), m_model.pseudo.end(), p);
    if (it == m_model.pseudo.end()) it = m_model.pseudo.insert(it, std::move(p));
    r.coef[kPseudoBase - static_cast<int>(it - m_model.pseudo.begin())] = 1;
    return r;
  }

  /// Every loop (and the lanes of a vector) that `e` depends on, through lets.
  Affine opaque(const ir::Expr& e) const {
    Affine r;
    r.opaque = true;
    collectKeys(e, r.opaqueKeys);
    if (e.dtype().lanes() > 1) r.opaqueKeys.push_back(-e.dtype().lanes());
    return r;
  }

  void collectKeys(const ir::Expr& e, std::vector<int>& keys) const {
    ir::forEachExpr(e, [&](const ir::Expr& x) {
      if (!x.is<ir::Var>()) return;
      if (auto it = m_loopOf.find(x.get()); it != m_loopOf.end()) keys.push_back(it->second);
      if (auto it = m_lets.find(x.get()); it != m_lets.end()) collectKeys(it->second, keys);
    });
  }

  /// An integer expression of sizes (loop variables at 0, their first value).
  std::optional<double> eval(const ir::Expr& e) const {
    const auto binary = [&](const ir::Expr& a, const ir::Expr& b, auto op) -> std::optional<double> {
      const auto x = eval(a), y = eval(b);
      if (!x || !y) return std::nullopt;
      return op(*x, *y);
    };
    switch (e.kind()) {
    case ir::ExprKind::IntImm: return static_cast<double>(e.as<ir::IntImm>()->value);
    case ir::ExprKind::Var: {
      if (m_loopOf.contains(e.get())) return 0.0;
      if (auto it = m_lets.find(e.get()); it != m_lets.end()) return eval(it->second);
      if (auto it = m_sizes.find(e.as<ir::Var>()->name); it != m_sizes.end()) return static_cast<double>(it->second);
      return std::nullopt;
    }
    case ir::ExprKind::Cast: return eval(e.as<ir::Cast>()->value);
    case ir::ExprKind::Add: return binary(e.as<ir::Add>()->a, e.as<ir::Add>()->b, std::plus<>());
    case ir::ExprKind::Sub: return binary(e.as<ir::Sub>()->a, e.as<ir::Sub>()->b, std::minus<>());
    case ir::ExprKind::Mul: return binary(e.as<ir::Mul>()->a, e.as<ir::Mul>()->b, std::multiplies<>());
    case ir::ExprKind::Min:
      return binary(e.as<ir::Min>()->a, e.as<ir::Min>()->b, [](double x, double y) { return std::min(x, y); });
    case ir::ExprKind::Max:
      return binary(e.as<ir::Max>()->a, e.as<ir::Max>()->b, [](double x, double y) { return std::max(x, y); });
    case ir::ExprKind::Div:
      return binary(e.as<ir::Div>()->a, e.as<ir::Div>()->b,
                    [](double x, double y) { return y == 0 ? 0.0 : std::trunc(x / y); });
    case ir::ExprKind::FloorDiv:
      return binary(e.as<ir::FloorDiv>()->a, e.as<ir::FloorDiv>()->b,
                    [](double x, double y) { return y == 0 ? 0.0 : std::floor(x / y); });
    case ir::ExprKind::FloorMod:
      return binary(e.as<ir::FloorMod>()->a, e.as<ir::FloorMod>()->b,
                    [](double x, double y) { return y == 0 ? 0.0 : x - std::floor(x / y) * y; });
    default: return std::nullopt;
    }
  }

  Model& m_model;
  const ir::SizeBindings& m_sizes;
  std::unordered_map<const ir::BufferNode*, int> m_bufferOf;
  std::unordered_map<const ir::ExprNode*, int> m_loopOf;
  std::unordered_map<const ir::ExprNode*, ir::Expr> m_lets;
};

} // namespace

std::int64_t hostL2CacheBytes() {
  const std::int64_t l2 = ir::hostCaches().l2;
  return l2 > 0 ? l2 : std::int64_t{1} << 20;
}

std::string cacheSizeText(std::int64_t bytes) {
  if (bytes > 0 && bytes % (std::int64_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes > 0 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

TrafficEstimate estimateTraffic(const LoweredFunc& func, const ir::SizeBindings& sizes, TrafficOptions options) {
  TrafficEstimate result;
  result.cacheBytes = options.cacheBytes > 0 ? options.cacheBytes : hostL2CacheBytes();
  result.lineBytes = options.lineBytes > 0 ? options.lineBytes : 64;
  result.model = fmt::format("beyond a {} cache, {}-byte lines", cacheSizeText(result.cacheBytes), result.lineBytes);
  Model model;
  model.cacheBytes = static_cast<double>(result.cacheBytes);
  model.lineBytes = static_cast<double>(result.lineBytes);
  Collector collector(model, sizes);
  const Node root = collector.function(func);
  result.bytes = model.traffic(root);
  return result;
}

} // namespace loopscape::codegen
