// The op library: for each op (and each attribute form that changes the loops: padding
// forms, strides, dilation, groups/depthwise, NHWC, ceil_mode, count_include_pad,
// broadcasting, negative axes, keepdims), the inferred result type and the values its
// TOPI-style compute gives through the reference interpreter, against a plain C++
// reference written from the op's definition, on small random inputs.
#include "core/frontend/relay/relay_exec.h"
#include "core/frontend/relay/relay_parser.h"
#include "core/frontend/relay/relay_type_infer.h"

#include <QtTest>

#include <cmath>
#include <functional>

using namespace loopscape;
using namespace loopscape::frontend::relay;
using Shape = std::vector<std::int64_t>;
using Arrays = std::vector<ir::NDArray>;

namespace {

std::int64_t flat(const Shape& s, const Shape& i) {
  std::int64_t f = 0;
  for (std::size_t d = 0; d < s.size(); ++d)
    f = f * s[d] + i[d];
  return f;
}
double at(const ir::NDArray& a, const Shape& i) { return a.getDouble(flat(a.shape(), i)); }
/// Calls fn on every index of `shape` in row-major order.
void forEach(const Shape& shape, const std::function<void(const Shape&)>& fn) {
  std::int64_t n = 1;
  for (auto d : shape)
    n *= d;
  Shape i(shape.size());
  for (std::int64_t f = 0; f < n; ++f) {
    std::int64_t r = f;
    for (std::size_t d = shape.size(); d-- > 0;) {
      i[d] = r % shape[d];
      r /= shape[d];
    }
    fn(i);
  }
}
ir::NDArray make(const Shape& s, const std::function<double(const Shape&)>& fn) {
  ir::NDArray out(s, ir::DataType::float32());
  forEach(s, [&](const Shape& i) { out.setDouble(flat(s, i), fn(i)); });
  return out;
}

/// NCHW conv2d with 4-value padding [top, left, bottom, right].
ir::NDArray conv2dRef(const ir::NDArray& x, const ir::NDArray& w, Shape st, Shape pad, Shape dil, std::int64_t groups) {
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  std::int64_t oh = (xs[2] + pad[0] + pad[2] - ((ws[2] - 1) * dil[0] + 1)) / st[0] + 1;
  std::int64_t ow = (xs[3] + pad[1] + pad[3] - ((ws[3] - 1) * dil[1] + 1)) / st[1] + 1;
  std::int64_t opg = ws[0] / groups;
  return make({xs[0], ws[0], oh, ow}, [&](const Shape& i) {
    double s = 0;
    std::int64_t g = i[1] / opg;
    for (std::int64_t c = 0; c < ws[1]; ++c)
      for (std::int64_t ky = 0; ky < ws[2]; ++ky)
        for (std::int64_t kx = 0; kx < ws[3]; ++kx) {
          std::int64_t y = i[2] * st[0] + ky * dil[0] - pad[0], xx = i[3] * st[1] + kx * dil[1] - pad[1];
          if (y < 0 || y >= xs[2] || xx < 0 || xx >= xs[3]) continue;
          s += at(x, {i[0], g * ws[1] + c, y, xx}) * at(w, {i[1], c, ky, kx});
        }
    return s;
  });
}

ir::NDArray poolRef(const ir::NDArray& x, Shape size, Shape st, Shape pad, bool isMax, bool ceil, bool includePad) {
  const Shape& xs = x.shape();
  auto out = [&](int k) {
    std::int64_t num = xs[2 + k] + pad[k] + pad[k + 2] - size[k];
    return (ceil ? (num + st[k] - 1) / st[k] : num / st[k]) + 1;
  };
  return make({xs[0], xs[1], out(0), out(1)}, [&](const Shape& i) {
    double m = -1e30, s = 0;
    int count = 0;
    for (std::int64_t ky = 0; ky < size[0]; ++ky)
      for (std::int64_t kx = 0; kx < size[1]; ++kx) {
        std::int64_t y = i[2] * st[0] + ky - pad[0], xx = i[3] * st[1] + kx - pad[1];
        bool inside = y >= 0 && y < xs[2] && xx >= 0 && xx < xs[3];
        double v = inside ? at(x, {i[0], i[1], y, xx}) : 0;
        if (inside) {
          m = std::max(m, v);
          ++count;
        }
        s += v;
      }
    return isMax ? m : s / (includePad ? static_cast<double>(size[0] * size[1]) : count);
  });
}

ir::NDArray softmaxRef(const ir::NDArray& x, std::size_t axis, bool isLog) {
  const Shape& s = x.shape();
  return make(s, [&](const Shape& i) {
    Shape j = i;
    double m = -1e30, sum = 0;
    for (j[axis] = 0; j[axis] < s[axis]; ++j[axis])
      m = std::max(m, at(x, j));
    for (j[axis] = 0; j[axis] < s[axis]; ++j[axis])
      sum += std::exp(at(x, j) - m);
    return isLog ? at(x, i) - m - std::log(sum) : std::exp(at(x, i) - m) / sum;
  });
}

struct Case {
  std::string params; ///< "%x: Tensor[...], ..."
  std::string body;   ///< the result expression
  std::string type;   ///< the expected result type
  std::function<ir::NDArray(const Arrays&)> reference;
};

std::vector<std::pair<std::string, Case>> cases() {
  const std::string f32 = "float32";
  auto T = [&](const std::string& shape) { return "Tensor[(" + shape + "), float32]"; };
  std::vector<std::pair<std::string, Case>> c;
  // conv2d: 2-value padding, strides, dilation, groups, depthwise, 4-value padding.
  c.push_back({"conv2d_basic",
               {"%x: " + T("1, 3, 6, 6") + ", %w: " + T("4, 3, 3, 3"), "nn.conv2d(%x, %w)", T("1, 4, 4, 4"),
                [](const Arrays& a) {
                  return conv2dRef(a[0], a[1], {1, 1}, {0, 0, 0, 0}, {1, 1}, 1);
                }}});
  c.push_back({"conv2d_pad2_stride",
               {"%x: " + T("1, 2, 7, 6") + ", %w: " + T("3, 2, 3, 3"),
                "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1])", T("1, 3, 4, 3"), [](const Arrays& a) {
                  return conv2dRef(a[0], a[1], {2, 2}, {1, 1, 1, 1}, {1, 1}, 1);
                }}});
  c.push_back({"conv2d_pad4_dilation",
               {"%x: " + T("1, 2, 8, 8") + ", %w: " + T("2, 2, 3, 3"),
                "nn.conv2d(%x, %w, padding=[0, 1, 2, 3], dilation=[2, 1])", T("1, 2, 6, 10"), [](const Arrays& a) {
                  return conv2dRef(a[0], a[1], {1, 1}, {0, 1, 2, 3}, {2, 1}, 1);
                }}});
  c.push_back({"conv2d_groups",
               {"%x: " + T("1, 4, 5, 5") + ", %w: " + T("6, 2, 3, 3"), "nn.conv2d(%x, %w, padding=[1], groups=2)",
                T("1, 6, 5, 5"), [](const Arrays& a) {
                  return conv2dRef(a[0], a[1], {1, 1}, {1, 1, 1, 1}, {1, 1}, 2);
                }}});
  c.push_back({"conv2d_depthwise",
               {"%x: " + T("1, 3, 5, 5") + ", %w: " + T("3, 1, 3, 3"),
                "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3])", T("1, 3, 5, 5"),
                [](const Arrays& a) {
                  return conv2dRef(a[0], a[1], {1, 1}, {1, 1, 1, 1}, {1, 1}, 3);
                }}});
  c.push_back(
      {"conv2d_nhwc",
       {"%x: " + T("1, 5, 5, 2") + ", %w: " + T("3, 3, 2, 4"),
        "nn.conv2d(%x, %w, padding=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")", T("1, 5, 5, 4"),
        [](const Arrays& a) {
          // Transpose to NCHW/OIHW, convolve, transpose back.
          const Shape& xs = a[0].shape();
          auto x = make({1, xs[3], xs[1], xs[2]}, [&](const Shape& i) { return at(a[0], {i[0], i[2], i[3], i[1]}); });
          auto w = make({4, 2, 3, 3}, [&](const Shape& i) { return at(a[1], {i[2], i[3], i[1], i[0]}); });
          auto o = conv2dRef(x, w, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
          return make({1, 5, 5, 4}, [&](const Shape& i) { return at(o, {i[0], i[3], i[1], i[2]}); });
        }}});
  c.push_back({"dense", {"%x: " + T("3, 5") + ", %w: " + T("4, 5"), "nn.dense(%x, %w)", T("3, 4"), [](const Arrays& a) {
                           return make({3, 4}, [&](const Shape& i) {
                             double s = 0;
                             for (std::int64_t k = 0; k < 5; ++k)
                               s += at(a[0], {i[0], k}) * at(a[1], {i[1], k});
                             return s;
                           });
                         }}});
  c.push_back(
      {"batch_matmul",
       {"%x: " + T("2, 3, 4") + ", %y: " + T("1, 5, 4"), "nn.batch_matmul(%x, %y)", T("2, 3, 5"), [](const Arrays& a) {
          return make({2, 3, 5}, [&](const Shape& i) {
            double s = 0;
            for (std::int64_t k = 0; k < 4; ++k)
              s += at(a[0], {i[0], i[1], k}) * at(a[1], {0, i[2], k});
            return s;
          });
        }}});
  c.push_back(
      {"bias_add_axis",
       {"%x: " + T("2, 3, 4") + ", %b: " + T("4"), "nn.bias_add(%x, %b, axis=-1)", T("2, 3, 4"), [](const Arrays& a) {
          return make({2, 3, 4}, [&](const Shape& i) { return at(a[0], i) + at(a[1], {i[2]}); });
        }}});
  c.push_back({"max_pool_pad",
               {"%x: " + T("1, 2, 5, 5"), "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])",
                T("1, 2, 3, 3"), [](const Arrays& a) {
                  return poolRef(a[0], {3, 3}, {2, 2}, {1, 1, 1, 1}, true, false, false);
                }}});
  c.push_back({"max_pool_ceil",
               {"%x: " + T("1, 1, 6, 6"), "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)",
                T("1, 1, 3, 3"), [](const Arrays& a) {
                  return poolRef(a[0], {3, 3}, {2, 2}, {0, 0, 0, 0}, true, true, false);
                }}});
  c.push_back({"avg_pool_exclude_pad",
               {"%x: " + T("1, 2, 4, 4"), "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1, 1, 1])", T("1, 2, 4, 4"),
                [](const Arrays& a) {
                  return poolRef(a[0], {3, 3}, {1, 1}, {1, 1, 1, 1}, false, false, false);
                }}});
  c.push_back({"avg_pool_include_pad",
               {"%x: " + T("1, 2, 4, 4"),
                "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1], count_include_pad=True)",
                T("1, 2, 3, 3"), [](const Arrays& a) {
                  return poolRef(a[0], {2, 2}, {2, 2}, {1, 1, 1, 1}, false, false, true);
                }}});
  c.push_back(
      {"global_avg_pool", {"%x: " + T("2, 3, 4, 5"), "nn.global_avg_pool2d(%x)", T("2, 3, 1, 1"), [](const Arrays& a) {
                             return make({2, 3, 1, 1}, [&](const Shape& i) {
                               double s = 0;
                               for (std::int64_t y = 0; y < 4; ++y)
                                 for (std::int64_t x = 0; x < 5; ++x)
                                   s += at(a[0], {i[0], i[1], y, x});
                               return s / 20;
                             });
                           }}});
  c.push_back({"softmax_axis", {"%x: " + T("3, 4, 2"), "nn.softmax(%x, axis=1)", T("3, 4, 2"), [](const Arrays& a) {
                                  return softmaxRef(a[0], 1, false);
                                }}});
  c.push_back({"log_softmax", {"%x: " + T("2, 5"), "nn.log_softmax(%x)", T("2, 5"), [](const Arrays& a) {
                                 return softmaxRef(a[0], 1, true);
                               }}});
  auto sameFlat = [](const Shape& s) {
    return [s](const Arrays& a) { return make(s, [&](const Shape& i) { return a[0].getDouble(flat(s, i)); }); };
  };
  c.push_back({"batch_flatten", {"%x: " + T("2, 3, 2, 2"), "nn.batch_flatten(%x)", T("2, 12"), sameFlat({2, 12})}});
  c.push_back(
      {"reshape_0_-1", {"%x: " + T("2, 3, 4"), "reshape(%x, newshape=[0, -1, 2])", T("2, 6, 2"), sameFlat({2, 6, 2})}});
  c.push_back(
      {"transpose", {"%x: " + T("2, 3, 4"), "transpose(%x, axes=[2, 0, -2])", T("4, 2, 3"), [](const Arrays& a) {
                       return make({4, 2, 3}, [&](const Shape& i) { return at(a[0], {i[1], i[2], i[0]}); });
                     }}});
  c.push_back(
      {"add_broadcast",
       {"%x: " + T("2, 1, 3") + ", %y: " + T("4, 1"), "add(%x, %y)", T("2, 4, 3"), [](const Arrays& a) {
          return make({2, 4, 3}, [&](const Shape& i) { return at(a[0], {i[0], 0, i[2]}) + at(a[1], {i[1], 0}); });
        }}});
  c.push_back({"multiply_scalar", {"%x: " + T("2, 3"), "multiply(%x, 2f)", T("2, 3"), [](const Arrays& a) {
                                     return make({2, 3}, [&](const Shape& i) { return 2 * at(a[0], i); });
                                   }}});
  c.push_back({"sum_neg_axis_keepdims",
               {"%x: " + T("2, 3, 4"), "sum(%x, axis=[-1, 0], keepdims=True)", T("1, 3, 1"), [](const Arrays& a) {
                  return make({1, 3, 1}, [&](const Shape& i) {
                    double s = 0;
                    for (std::int64_t p = 0; p < 2; ++p)
                      for (std::int64_t q = 0; q < 4; ++q)
                        s += at(a[0], {p, i[1], q});
                    return s;
                  });
                }}});
  c.push_back({"mean", {"%x: " + T("2, 3"), "mean(%x, axis=[1])", T("2"), [](const Arrays& a) {
                          return make({2}, [&](const Shape& i) {
                            return (at(a[0], {i[0], 0}) + at(a[0], {i[0], 1}) + at(a[0], {i[0], 2})) / 3;
                          });
                        }}});
  c.push_back({"max_all", {"%x: " + T("2, 3"), "max(%x)", "float32", [](const Arrays& a) {
                             double m = -1e30;
                             for (std::int64_t k = 0; k < 6; ++k)
                               m = std::max(m, a[0].getDouble(k));
                             return make({}, [&](const Shape&) { return m; });
                           }}});
  c.push_back(
      {"concatenate",
       {"%x: " + T("2, 1") + ", %y: " + T("2, 3"), "concatenate((%x, %y), axis=-1)", T("2, 4"), [](const Arrays& a) {
          return make({2, 4}, [&](const Shape& i) {
            return i[1] < 1 ? at(a[0], {i[0], 0}) : at(a[1], {i[0], i[1] - 1});
          });
        }}});
  c.push_back({"strided_slice",
               {"%x: " + T("5, 6"), "strided_slice(%x, begin=[1, -5], end=[5, 6], strides=[2, 3])", T("2, 2"),
                [](const Arrays& a) {
                  return make({2, 2}, [&](const Shape& i) { return at(a[0], {1 + 2 * i[0], 1 + 3 * i[1]}); });
                }}});
  c.push_back(
      {"pad",
       {"%x: " + T("2, 2"), "nn.pad(%x, 1.5f, pad_width=[[1, 0], [0, 2]])", T("3, 4"), [](const Arrays& a) {
          return make({3, 4}, [&](const Shape& i) { return i[0] >= 1 && i[1] < 2 ? at(a[0], {i[0] - 1, i[1]}) : 1.5; });
        }}});
  c.push_back({"expand_squeeze",
               {"%x: " + T("3, 1, 2"), "expand_dims(squeeze(%x, axis=[1]), axis=1, num_newaxis=2)", T("3, 1, 1, 2"),
                sameFlat({3, 1, 1, 2})}});
  c.push_back({"clip_relu_leaky",
               {"%x: " + T("2, 3"), "nn.leaky_relu(clip(nn.relu(%x), a_min=0.25f, a_max=0.5f), alpha=0.1f)", T("2, 3"),
                [](const Arrays& a) {
                  return make({2, 3}, [&](const Shape& i) {
                    return std::min(std::max(std::max(at(a[0], i), 0.0), 0.25), 0.5);
                  });
                }}});
  c.push_back({"where_less",
               {"%x: " + T("2, 3") + ", %y: " + T("3"), "where(less(%x, %y), %x, negative(%y))", T("2, 3"),
                [](const Arrays& a) {
                  return make({2, 3}, [&](const Shape& i) {
                    double x = at(a[0], i), y = at(a[1], {i[1]});
                    return x < y ? x : -y;
                  });
                }}});
  c.push_back({"unary_math", {"%x: " + T("4"), "add(sigmoid(%x), tanh(exp(%x)))", T("4"), [](const Arrays& a) {
                                return make({4}, [&](const Shape& i) {
                                  double x = at(a[0], i);
                                  return static_cast<double>(1.0f / (1.0f + std::exp(-static_cast<float>(x)))) +
                                         std::tanh(std::exp(x));
                                });
                              }}});
  c.push_back({"split_concat",
               {"%x: " + T("2, 6"),
                "%0 = split(%x, indices_or_sections=[1, 3], axis=-1);\n  concatenate((%0.2, %0.0, %0.1), axis=1)",
                T("2, 6"), [](const Arrays& a) {
                  // fields: [0, 1), [1, 3), [3, 6) -> order 2, 0, 1
                  static const int src[] = {3, 4, 5, 0, 1, 2};
                  return make({2, 6}, [&](const Shape& i) { return at(a[0], {i[0], src[i[1]]}); });
                }}});
  c.push_back({"split_sections",
               {"%x: " + T("4, 2"), "%0 = split(%x, indices_or_sections=2);\n  subtract(%0.1, %0.0)", T("2, 2"),
                [](const Arrays& a) {
                  return make({2, 2}, [&](const Shape& i) { return at(a[0], {i[0] + 2, i[1]}) - at(a[0], i); });
                }}});
  c.push_back({"variance_unbiased",
               {"%x: " + T("3, 4"), "variance(%x, mean(%x, axis=[1], keepdims=True), axis=[1], unbiased=True)", T("3"),
                [](const Arrays& a) {
                  return make({3}, [&](const Shape& i) {
                    double m = 0, v = 0;
                    for (std::int64_t k = 0; k < 4; ++k)
                      m += at(a[0], {i[0], k}) / 4;
                    for (std::int64_t k = 0; k < 4; ++k)
                      v += (at(a[0], {i[0], k}) - m) * (at(a[0], {i[0], k}) - m);
                    return v / 3;
                  });
                }}});
  c.push_back(
      {"argmax", {"%x: " + T("3, 5"), "cast(argmax(%x, axis=[1]), dtype=\"float32\")", T("3"), [](const Arrays& a) {
                    return make({3}, [&](const Shape& i) {
                      std::int64_t best = 0;
                      for (std::int64_t k = 1; k < 5; ++k)
                        if (at(a[0], {i[0], k}) > at(a[0], {i[0], best})) best = k;
                      return static_cast<double>(best);
                    });
                  }}});
  c.push_back(
      {"full",
       {"%x: " + T("2, 3"), "add(%x, full(2.5f, shape=[2, 3], dtype=\"float32\"))", T("2, 3"), [](const Arrays& a) {
          return make({2, 3}, [&](const Shape& i) { return at(a[0], i) + 2.5; });
        }}});
  c.push_back({"layout_nchw4c_roundtrip",
               {"%x: " + T("1, 8, 2, 3"),
                "%0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\");\n"
                "  %1 = multiply(%0, 2f);\n  layout_transform(%1, src_layout=\"NCHW4c\", dst_layout=\"NHWC\")",
                T("1, 2, 3, 8"), [](const Arrays& a) {
                  return make({1, 2, 3, 8}, [&](const Shape& i) { return 2 * at(a[0], {i[0], i[3], i[1], i[2]}); });
                }}});
  return c;
}

} // namespace

class TstRelayOps : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void compute_data();
  void compute();
  void tableIsConsistent();
};

void TstRelayOps::compute_data() {
  QTest::addColumn<int>("index");
  auto all = cases();
  for (std::size_t k = 0; k < all.size(); ++k)
    QTest::newRow(all[k].first.c_str()) << static_cast<int>(k);
}

void TstRelayOps::compute() {
  QFETCH(int, index);
  const Case c = cases()[static_cast<std::size_t>(index)].second;
  std::string text = "#[version = \"0.0.5\"]\ndef @main(" + c.params + ") {\n  " + c.body + "\n}\n";
  auto parsed = parseRelay(text, "op.relay");
  QVERIFY2(parsed, parsed ? "" : renderDiagnostic(parsed.error(), text).c_str());
  auto typed = inferTypes(*parsed);
  QVERIFY2(typed, typed ? "" : renderDiagnostic(typed.error(), text).c_str());
  const Function& main = typed->functions[0];
  QCOMPARE(QString::fromStdString(typeStr(main.retType)), QString::fromStdString(c.type));
  Arrays inputs;
  for (std::size_t k = 0; k < main.params.size(); ++k) {
    ir::NDArray a(main.params[k]->type.shape, main.params[k]->type.dtype);
    a.fillRandom(17 + k);
    inputs.push_back(a);
  }
  auto out = runFused(*typed, main, fuseOps(main), inputs);
  QVERIFY2(out, out ? "" : renderDiagnostic(out.error(), text).c_str());
  QCOMPARE(out->size(), std::size_t{1});
  ir::NDArray expected = c.reference(inputs);
  QCOMPARE((*out)[0].shape(), expected.shape());
  auto mismatch = ir::firstMismatch((*out)[0], expected, 1e-5, 1e-5);
  QVERIFY2(!mismatch, mismatch ? qPrintable(QStringLiteral("index %1: got %2, expected %3")
                                                .arg(mismatch->index)
                                                .arg(mismatch->actual)
                                                .arg(mismatch->expected))
                               : "");
}

void TstRelayOps::tableIsConsistent() {
  // One entry per name; every op has a relation; ops without a compute are exactly the
  // ones SimplifyInference rewrites.
  std::set<std::string> names;
  for (const auto& op : opTable()) {
    QVERIFY2(names.insert(op.name).second, op.name.c_str());
    QVERIFY(static_cast<bool>(op.relation));
    if (!op.compute)
      QVERIFY2(op.name == "nn.batch_norm" || op.name == "nn.dropout" || op.name == "nn.layer_norm", op.name.c_str());
  }
  QCOMPARE(findOp("nn.conv2d")->pattern, OpPattern::OutEWiseFusable);
  QCOMPARE(findOp("add")->pattern, OpPattern::Broadcast);
  QCOMPARE(findOp("nn.relu")->pattern, OpPattern::ElemWise);
  QCOMPARE(findOp("reshape")->pattern, OpPattern::Injective);
  QCOMPARE(findOp("sum")->pattern, OpPattern::CommReduce);
  QCOMPARE(findOp("nn.dropout")->pattern, OpPattern::Opaque);
}

QTEST_GUILESS_MAIN(TstRelayOps)
#include "tst_ops.moc"
