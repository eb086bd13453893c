#include "core/frontend/relay/relay_layout.h"

#include <cctype>
#include <cstring>

namespace loopscape::frontend::relay {

std::optional<Layout> parseLayout(const std::string& s) {
  Layout out;
  std::int64_t factor = 0;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      factor = factor * 10 + (c - '0');
      if (factor > (1 << 20)) return std::nullopt;
    } else if (std::isupper(static_cast<unsigned char>(c)) && factor == 0) {
      out.push_back({c, 0});
    } else if (std::islower(static_cast<unsigned char>(c)) && factor > 0) {
      out.push_back({static_cast<char>(std::toupper(static_cast<unsigned char>(c))), factor});
      factor = 0;
    } else {
      return std::nullopt;
    }
  }
  if (factor) return std::nullopt;
  // Every primal axis once, at most one sub-axis each; every sub-axis names a primal
  // axis of the layout.
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = i + 1; j < out.size(); ++j)
      if (out[i].primal == out[j].primal && (out[i].factor == 0) == (out[j].factor == 0)) return std::nullopt;
  for (const auto& a : out)
    if (a.factor && primalIndex(out, a.primal) < 0) return std::nullopt;
  return out;
}

std::int64_t subFactor(const Layout& l, char primal) {
  std::int64_t f = 1;
  for (const auto& a : l)
    if (a.primal == primal && a.factor) f *= a.factor;
  return f;
}

int primalIndex(const Layout& l, char primal) {
  for (std::size_t k = 0; k < l.size(); ++k)
    if (l[k].primal == primal && !l[k].factor) return static_cast<int>(k);
  return -1;
}

std::map<char, std::int64_t> primalExtents(const Layout& l, const std::vector<std::int64_t>& shape) {
  std::map<char, std::int64_t> e;
  for (std::size_t k = 0; k < l.size(); ++k)
    if (!l[k].factor) e[l[k].primal] = shape[k] * subFactor(l, l[k].primal);
  return e;
}

void relayout(const ir::NDArray& in, const Layout& src, const Layout& dst, ir::NDArray& out) {
  const std::vector<std::int64_t>& inShape = in.shape();
  const std::vector<std::int64_t>& outShape = out.shape();
  const std::size_t bytes = static_cast<std::size_t>(in.dtype().bytes());
  // Row-major strides of the source.
  std::vector<std::int64_t> inStride(inShape.size(), 1);
  for (std::size_t k = inShape.size(); k-- > 1;)
    inStride[k - 1] = inStride[k] * inShape[k];
  // Per source axis: its primal letter, its factor (sub-axis) or the divisor (primal).
  struct SrcAxis {
    char primal;
    bool sub;
    std::int64_t by;
  };
  std::vector<SrcAxis> srcAxes;
  for (const auto& a : src)
    srcAxes.push_back({a.primal, a.factor != 0, a.factor ? a.factor : subFactor(src, a.primal)});
  std::vector<std::int64_t> index(outShape.size(), 0);
  std::int64_t primal[26] = {};
  const std::byte* from = in.rawData();
  std::byte* to = out.rawData();
  for (std::int64_t flat = 0; flat < out.numel(); ++flat) {
    for (std::size_t k = 0; k < dst.size(); ++k)
      if (!dst[k].factor) primal[dst[k].primal - 'A'] = index[k];
    for (std::size_t k = 0; k < dst.size(); ++k)
      if (dst[k].factor) primal[dst[k].primal - 'A'] = primal[dst[k].primal - 'A'] * dst[k].factor + index[k];
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < srcAxes.size(); ++k) {
      const std::int64_t p = primal[srcAxes[k].primal - 'A'];
      offset += (srcAxes[k].sub ? p % srcAxes[k].by : p / srcAxes[k].by) * inStride[k];
    }
    std::memcpy(to + static_cast<std::size_t>(flat) * bytes, from + static_cast<std::size_t>(offset) * bytes, bytes);
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < outShape[k]) break;
      index[k] = 0;
    }
  }
}

} // namespace loopscape::frontend::relay
