// Diagnostics of the .te front end: for each bad program, the exact diagnostic code and
// the exact rendered text (file:line:col, message, source line, caret, notes). Also a
// robustness test: random bytes, truncations and mutations of the samples must always
// give a PrimFunc or a Diagnostic, never a crash or an assertion.
#include "core/frontend/te_frontend.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <random>

using loopscape::frontend::parseTe;

class TstTeErrors : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void diagnostics_data();
  void diagnostics();
  void fuzzNeverCrashes();
};

void TstTeErrors::diagnostics_data() {
  QTest::addColumn<QString>("source");
  QTest::addColumn<QString>("code");
  QTest::addColumn<QString>("rendered");
  QTest::newRow("unexpected_char") << QString::fromUtf8(R"te(x = 3 $ 4
)te")
      << QStringLiteral("te.unexpected-char")
      << QString::fromUtf8(R"te(test.te:1:7: error: unexpected character '$'
  x = 3 $ 4
        ^
)te");
  QTest::newRow("unterminated_string") << QString::fromUtf8(R"te(A = placeholder((4,), name="A)
)te")
      << QStringLiteral("te.unterminated-string")
      << QString::fromUtf8(R"te(test.te:1:28: error: unterminated string literal
  A = placeholder((4,), name="A)
                             ^
)te");
  QTest::newRow("unmatched_close") << QString::fromUtf8(R"te(x = (1 + 2))
)te")
      << QStringLiteral("te.unbalanced")
      << QString::fromUtf8(R"te(test.te:1:12: error: unmatched ')'
  x = (1 + 2))
             ^
)te");
  QTest::newRow("never_closed") << QString::fromUtf8(R"te(n = 4
x = (1 + 2
y = 3
)te")
      << QStringLiteral("te.unbalanced")
      << QString::fromUtf8(R"te(test.te:2:5: error: '(' was never closed
  x = (1 + 2
      ^
)te");
  QTest::newRow("mismatched_close") << QString::fromUtf8(R"te(x = [1, 2)
)te")
      << QStringLiteral("te.unbalanced")
      << QString::fromUtf8(R"te(test.te:1:10: error: closing ')' does not match '[' opened at line 1, column 5
  x = [1, 2)
           ^
)te");
  QTest::newRow("expected_expression") << QString::fromUtf8(R"te(x = 1 +
)te")
      << QStringLiteral("te.unexpected-token")
      << QString::fromUtf8(R"te(test.te:1:8: error: expected an expression, found end of line
  x = 1 +
         ^
)te");
  QTest::newRow("expected_comma") << QString::fromUtf8(R"te(A = placeholder((4,) name="A")
)te")
      << QStringLiteral("te.unexpected-token")
      << QString::fromUtf8(R"te(test.te:1:22: error: expected ',' or ')', found 'name'
  A = placeholder((4,) name="A")
                       ^~~~
)te");
  QTest::newRow("unknown_name_suggest") << QString::fromUtf8(R"te(k = reduce_axis((0, 4), name="k")
A = placeholder((4, 4), name="A")
B = compute((4,), lambda i: sum(A[i, kk], axis=k), name="B")
)te")
      << QStringLiteral("te.unknown-name")
      << QString::fromUtf8(R"te(test.te:3:38: error: name 'kk' is not defined
  B = compute((4,), lambda i: sum(A[i, kk], axis=k), name="B")
                                       ^~
note: did you mean 'k'?
)te");
  QTest::newRow("unknown_function") << QString::fromUtf8(R"te(A = placeholder((4, 4), name="A")
B = compute((4, 4), lambda i, j: exq(A[i, j]), name="B")
)te")
      << QStringLiteral("te.unknown-name")
      << QString::fromUtf8(R"te(test.te:2:34: error: name 'exq' is not defined
  B = compute((4, 4), lambda i, j: exq(A[i, j]), name="B")
                                   ^~~
note: did you mean 'exp'?
)te");
  QTest::newRow("index_arity") << QString::fromUtf8(R"te(A = placeholder((4, 4), name="A")
B = compute((4,), lambda i: A[i, i, i], name="B")
)te")
      << QStringLiteral("te.index-arity")
      << QString::fromUtf8(R"te(test.te:2:29: error: 'A' has 2 dimensions but 3 indices were given
  B = compute((4,), lambda i: A[i, i, i], name="B")
                              ^~~~~~~~~~
)te");
  QTest::newRow("index_non_tensor") << QString::fromUtf8(R"te(n = 4
B = compute((4,), lambda i: n[i], name="B")
)te")
      << QStringLiteral("te.not-a-tensor")
      << QString::fromUtf8(R"te(test.te:2:29: error: 'n' is not a tensor (int 4) and cannot be indexed
  B = compute((4,), lambda i: n[i], name="B")
                              ^
)te");
  QTest::newRow("shape_not_tuple") << QString::fromUtf8(R"te(A = placeholder(4, name="A")
)te")
      << QStringLiteral("te.bad-shape")
      << QString::fromUtf8(R"te(test.te:1:17: error: the shape given to placeholder() must be a tuple or list of extents, got int 4
  A = placeholder(4, name="A")
                  ^
)te");
  QTest::newRow("shape_float") << QString::fromUtf8(R"te(A = placeholder((4, 1.5), name="A")
)te")
      << QStringLiteral("te.bad-shape")
      << QString::fromUtf8(R"te(test.te:1:21: error: shape element must be an int32 integer or size expression, got float 1.5
  A = placeholder((4, 1.5), name="A")
                      ^~~
)te");
  QTest::newRow("shape_string") << QString::fromUtf8(R"te(A = placeholder((4, "n"), name="A")
)te")
      << QStringLiteral("te.bad-shape")
      << QString::fromUtf8(R"te(test.te:1:21: error: shape element must be an int32 integer or size expression, got str 'n'
  A = placeholder((4, "n"), name="A")
                      ^~~
)te");
  QTest::newRow("zero_extent") << QString::fromUtf8(R"te(A = placeholder((4, 0), name="A")
)te")
      << QStringLiteral("te.bad-extent")
      << QString::fromUtf8(R"te(test.te:1:21: error: extent must be positive, got 0
  A = placeholder((4, 0), name="A")
                      ^
)te");
  QTest::newRow("negative_extent") << QString::fromUtf8(R"te(n = 2
A = placeholder((n - 3,), name="A")
)te")
      << QStringLiteral("te.bad-extent")
      << QString::fromUtf8(R"te(test.te:2:18: error: extent must be positive, got -1
  A = placeholder((n - 3,), name="A")
                   ^~~~~
)te");
  QTest::newRow("unknown_dtype") << QString::fromUtf8(R"te(A = placeholder((4,), dtype="flaot32", name="A")
)te")
      << QStringLiteral("te.unknown-dtype")
      << QString::fromUtf8(R"te(test.te:1:29: error: unknown dtype 'flaot32'
  A = placeholder((4,), dtype="flaot32", name="A")
                              ^~~~~~~~~
note: did you mean 'float32'?
note: known dtypes: bool, int8, int16, int32, int64, uint8, float16, float32, float64
)te");
  QTest::newRow("dtype_mismatch") << QString::fromUtf8(R"te(A = placeholder((4,), dtype="float32", name="A")
B = placeholder((4,), dtype="float64", name="B")
C = compute((4,), lambda i: A[i] + B[i], name="C")
)te")
      << QStringLiteral("te.type-mismatch")
      << QString::fromUtf8(R"te(test.te:3:29: error: type mismatch: float32 and float64
  C = compute((4,), lambda i: A[i] + B[i], name="C")
                              ^~~~~~~~~~~
note: cast one operand explicitly, e.g. float64(...)
)te");
  QTest::newRow("int_true_division_sizes") << QString::fromUtf8(R"te(n = 8 / 2
)te")
      << QStringLiteral("te.int-division")
      << QString::fromUtf8(R"te(test.te:1:5: error: '/' on integers is true division; use '//' for integer (floor) division
  n = 8 / 2
      ^~~~~
)te");
  QTest::newRow("int_true_division_expr") << QString::fromUtf8(R"te(A = placeholder((4,), dtype="int32", name="A")
B = compute((4,), lambda i: A[i] / 2, name="B")
)te")
      << QStringLiteral("te.int-division")
      << QString::fromUtf8(R"te(test.te:2:29: error: '/' on int32 operands is not integer division; use '//' (floor division)
  B = compute((4,), lambda i: A[i] / 2, name="B")
                              ^~~~~~~~
note: or cast to a float type for true division, e.g. float32(x) / y
)te");
  QTest::newRow("reduce_axis_outside") << QString::fromUtf8(R"te(k = reduce_axis((0, 4), "k")
A = placeholder((4, 4), name="A")
B = compute((4,), lambda i: A[i, k], name="B")
)te")
      << QStringLiteral("te.reduce-axis-outside")
      << QString::fromUtf8(R"te(test.te:3:34: error: reduce axis 'k' is used outside a reduction
  B = compute((4,), lambda i: A[i, k], name="B")
                                   ^
)te");
  QTest::newRow("reduction_not_top_level") << QString::fromUtf8(R"te(k = reduce_axis((0, 4), "k")
A = placeholder((4, 4), name="A")
B = compute((4,), lambda i: sum(A[i, k], axis=k) * 2.0, name="B")
)te")
      << QStringLiteral("te.reduction-not-top-level")
      << QString::fromUtf8(R"te(test.te:3:29: error: reduction must be the top level expression of compute
  B = compute((4,), lambda i: sum(A[i, k], axis=k) * 2.0, name="B")
                              ^~~~~~~~~~~~~~~~~~~~
)te");
  QTest::newRow("reduce_axis_not_listed") << QString::fromUtf8(R"te(k = reduce_axis((0, 4), "k")
r = reduce_axis((0, 4), "r")
A = placeholder((4, 4), name="A")
B = compute((4,), lambda i: sum(A[i, k] * A[r, k], axis=k), name="B")
)te")
      << QStringLiteral("te.reduce-axis-not-listed")
      << QString::fromUtf8(R"te(test.te:4:45: error: reduce axis 'r' is not listed in axis= of this reduction
  B = compute((4,), lambda i: sum(A[i, k] * A[r, k], axis=k), name="B")
                                              ^
note: list every reduce axis the expression uses, e.g. axis=[k, r]
)te");
  QTest::newRow("lambda_arity") << QString::fromUtf8(R"te(A = placeholder((4, 4), name="A")
B = compute((4, 4), lambda i, j, l: A[i, j], name="B")
)te")
      << QStringLiteral("te.lambda-arity")
      << QString::fromUtf8(R"te(test.te:2:21: error: the lambda takes 3 parameters but the shape has 2 dimensions
  B = compute((4, 4), lambda i, j, l: A[i, j], name="B")
                      ^~~~~~~~~~~~~~~~~~~~~~~
)te");
  QTest::newRow("too_many_args") << QString::fromUtf8(R"te(A = placeholder((4,), "float32", "A", 3)
)te")
      << QStringLiteral("te.argument-count")
      << QString::fromUtf8(R"te(test.te:1:39: error: placeholder() takes at most 3 arguments (4 given)
  A = placeholder((4,), "float32", "A", 3)
                                        ^
)te");
  QTest::newRow("missing_arg") << QString::fromUtf8(R"te(B = compute((4,), name="B")
)te")
      << QStringLiteral("te.argument-count")
      << QString::fromUtf8(R"te(test.te:1:5: error: compute() missing required argument 'fcompute'
  B = compute((4,), name="B")
      ^~~~~~~~~~~~~~~~~~~~~~~
)te");
  QTest::newRow("unknown_keyword") << QString::fromUtf8(R"te(A = placeholder((4,), dtyp="float32", name="A")
)te")
      << QStringLiteral("te.unknown-keyword")
      << QString::fromUtf8(R"te(test.te:1:23: error: placeholder() got an unexpected keyword argument 'dtyp'
  A = placeholder((4,), dtyp="float32", name="A")
                        ^~~~
note: did you mean 'dtype'?
)te");
  QTest::newRow("duplicate_name") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = placeholder((4,), name="A")
)te")
      << QStringLiteral("te.duplicate-name")
      << QString::fromUtf8(R"te(test.te:2:28: error: a tensor named 'A' is already defined
  B = placeholder((4,), name="A")
                             ^~~
note: 'A' was first defined at line 1, column 5
)te");
  QTest::newRow("assign_to_call") << QString::fromUtf8(R"te(f(x) = 3
)te")
      << QStringLiteral("te.bad-assignment")
      << QString::fromUtf8(R"te(test.te:1:1: error: cannot assign to a function call
  f(x) = 3
  ^~~~
)te");
  QTest::newRow("assign_to_subscript") << QString::fromUtf8(R"te(A = placeholder((4, 4), name="A")
A[0, 0] = 1
)te")
      << QStringLiteral("te.bad-assignment")
      << QString::fromUtf8(R"te(test.te:2:1: error: cannot assign to an element: tensors are immutable, define a new compute instead
  A[0, 0] = 1
  ^~~~~~~
)te");
  QTest::newRow("unpack_count") << QString::fromUtf8(R"te(n, m = 64, 128, 256
)te")
      << QStringLiteral("te.unpack-mismatch")
      << QString::fromUtf8(R"te(test.te:1:1: error: cannot unpack 3 values into 2 names
  n, m = 64, 128, 256
  ^~~~
)te");
  QTest::newRow("unpack_scalar") << QString::fromUtf8(R"te(n, m = 64
)te")
      << QStringLiteral("te.unpack-mismatch")
      << QString::fromUtf8(R"te(test.te:1:8: error: cannot unpack int 64 into 2 names
  n, m = 64
         ^~
)te");
  QTest::newRow("division_by_zero") << QString::fromUtf8(R"te(n = 64
m = n // (n - 64)
)te")
      << QStringLiteral("te.division-by-zero")
      << QString::fromUtf8(R"te(test.te:2:5: error: integer division by zero (64 // 0)
  m = n // (n - 64)
      ^~~~~~~~~~~~~
)te");
  QTest::newRow("use_before_assignment") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: B[i] + A[i], name="B")
)te")
      << QStringLiteral("te.use-before-assignment")
      << QString::fromUtf8(R"te(test.te:2:29: error: name 'B' is used before it is assigned (on line 2)
  B = compute((4,), lambda i: B[i] + A[i], name="B")
                              ^
)te");
  QTest::newRow("outputs_non_tensor") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A[i], name="B")
outputs = [B, 3]
)te")
      << QStringLiteral("te.bad-outputs")
      << QString::fromUtf8(R"te(test.te:3:15: error: outputs must be a list of computes, but this element is int 3
  outputs = [B, 3]
                ^
)te");
  QTest::newRow("outputs_not_list") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A[i], name="B")
outputs = B
)te")
      << QStringLiteral("te.bad-outputs")
      << QString::fromUtf8(R"te(test.te:3:11: error: outputs must be a list of computes, got tensor 'B'
  outputs = B
            ^
)te");
  QTest::newRow("outputs_placeholder") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A[i], name="B")
outputs = [A]
)te")
      << QStringLiteral("te.bad-outputs")
      << QString::fromUtf8(R"te(test.te:3:12: error: outputs must be a list of computes, but this element is tensor 'A' (a placeholder)
  outputs = [A]
             ^
)te");
  QTest::newRow("empty_program") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
)te")
      << QStringLiteral("te.empty-program")
      << QString::fromUtf8(R"te(test.te: error: the program defines no compute: nothing to lower
)te");
  QTest::newRow("size_overflow") << QString::fromUtf8(R"te(n = 2 ** 62 * 4
)te")
      << QStringLiteral("te.overflow")
      << QString::fromUtf8(R"te(test.te:1:5: error: integer overflow in size arithmetic: 4611686018427387904 * 4 does not fit in int64
  n = 2 ** 62 * 4
      ^~~~~~~~~~~
)te");
  QTest::newRow("literal_overflow") << QString::fromUtf8(R"te(n = 99999999999999999999
)te")
      << QStringLiteral("te.overflow")
      << QString::fromUtf8(R"te(test.te:1:5: error: integer literal 99999999999999999999 does not fit in int64
  n = 99999999999999999999
      ^~~~~~~~~~~~~~~~~~~~
)te");
  QTest::newRow("float_index") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A[0.5], name="B")
)te")
      << QStringLiteral("te.bad-index")
      << QString::fromUtf8(R"te(test.te:2:31: error: index 0 of 'A' must be an integer, got float 0.5
  B = compute((4,), lambda i: A[0.5], name="B")
                                ^~~
)te");
  QTest::newRow("float_index_expr") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A[i * 0.5], name="B")
)te")
      << QStringLiteral("te.bad-index")
      << QString::fromUtf8(R"te(test.te:2:31: error: index 0 of 'A' must be an integer, got float32
  B = compute((4,), lambda i: A[i * 0.5], name="B")
                                ^~~~~~~
)te");
  QTest::newRow("condition_not_bool") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: if_then_else(i, A[i], 0.0), name="B")
)te")
      << QStringLiteral("te.bad-condition")
      << QString::fromUtf8(R"te(test.te:2:42: error: the condition of if_then_else must be a boolean expression, got int32
  B = compute((4,), lambda i: if_then_else(i, A[i], 0.0), name="B")
                                           ^
)te");
  QTest::newRow("indentation") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
  B = 3
)te")
      << QStringLiteral("te.indentation")
      << QString::fromUtf8(R"te(test.te:2:3: error: unexpected indentation: statements must start in column 1 (the language has no indented blocks)
    B = 3
    ^
)te");
  QTest::newRow("unsupported_def") << QString::fromUtf8(R"te(def f(x):
)te")
      << QStringLiteral("te.unsupported")
      << QString::fromUtf8(R"te(test.te:1:1: error: 'def' statements are not supported: a .te program is a list of assignments (one per line)
  def f(x):
  ^~~
)te");
  QTest::newRow("unknown_module_attr") << QString::fromUtf8(R"te(from tvm import te
A = te.placeholde((4,), name="A")
)te")
      << QStringLiteral("te.unknown-attribute")
      << QString::fromUtf8(R"te(test.te:2:5: error: module 'tvm.te' has no attribute 'placeholde'
  A = te.placeholde((4,), name="A")
      ^~~~~~~~~~~~~
note: did you mean 'placeholder'?
)te");
  QTest::newRow("pow_on_ints") << QString::fromUtf8(R"te(A = placeholder((4,), dtype="int32", name="A")
B = compute((4,), lambda i: A[i] ** 2, name="B")
)te")
      << QStringLiteral("te.type-mismatch")
      << QString::fromUtf8(R"te(test.te:2:29: error: '**' needs floating-point operands, got int32
  B = compute((4,), lambda i: A[i] ** 2, name="B")
                              ^~~~~~~~~
note: cast the base, e.g. float32(x) ** 2
)te");
  QTest::newRow("tensor_as_value") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A + 1.0, name="B")
)te")
      << QStringLiteral("te.tensor-as-value")
      << QString::fromUtf8(R"te(test.te:2:29: error: tensor 'A' cannot be used as a value: index it, e.g. A[i]
  B = compute((4,), lambda i: A + 1.0, name="B")
                              ^
)te");
  QTest::newRow("not_callable") << QString::fromUtf8(R"te(n = 4
x = n(3)
)te")
      << QStringLiteral("te.not-callable")
      << QString::fromUtf8(R"te(test.te:2:5: error: 'n' is not callable (int 4)
  x = n(3)
      ^
)te");
  QTest::newRow("index_out_of_range") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A[4], name="B")
)te")
      << QStringLiteral("te.index-out-of-range")
      << QString::fromUtf8(R"te(test.te:2:31: error: index 4 is out of bounds for dimension 0 of 'A' (extent 4)
  B = compute((4,), lambda i: A[4], name="B")
                                ^
)te");
  QTest::newRow("math_on_int") << QString::fromUtf8(R"te(A = placeholder((4,), dtype="int32", name="A")
B = compute((4,), lambda i: exp(A[i]), name="B")
)te")
      << QStringLiteral("te.type-mismatch")
      << QString::fromUtf8(R"te(test.te:2:33: error: exp() needs floating-point arguments, got int32
  B = compute((4,), lambda i: exp(A[i]), name="B")
                                  ^~~~
note: cast the argument, e.g. exp(float32(...))
)te");
  QTest::newRow("import_numpy") << QString::fromUtf8(R"te(import numpy as np
)te")
      << QStringLiteral("te.unsupported-import")
      << QString::fromUtf8(R"te(test.te:1:8: error: module 'numpy' is not available: only tvm modules (tvm, tvm.te, tvm.tir) may be imported
  import numpy as np
         ^~~~~
)te");
  QTest::newRow("and_needs_bool") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: if_then_else(i < 2 and i, A[i], 0.0), name="B")
)te")
      << QStringLiteral("te.type-mismatch")
      << QString::fromUtf8(R"te(test.te:2:52: error: 'and' needs boolean operands, got int32
  B = compute((4,), lambda i: if_then_else(i < 2 and i, A[i], 0.0), name="B")
                                                     ^
)te");
  QTest::newRow("float_mod") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: A[i] % 2, name="B")
)te")
      << QStringLiteral("te.type-mismatch")
      << QString::fromUtf8(R"te(test.te:2:29: error: '%' needs integer operands, got float32
  B = compute((4,), lambda i: A[i] % 2, name="B")
                              ^~~~~~~~
)te");
  QTest::newRow("duplicate_lambda_param") << QString::fromUtf8(R"te(B = compute((4, 4), lambda i, i: i, name="B")
)te")
      << QStringLiteral("te.duplicate-name")
      << QString::fromUtf8(R"te(test.te:1:31: error: duplicate lambda parameter 'i'
  B = compute((4, 4), lambda i, i: i, name="B")
                                ^
)te");
  QTest::newRow("reduce_axis_empty") << QString::fromUtf8(R"te(k = reduce_axis((3, 3), "k")
)te")
      << QStringLiteral("te.bad-extent")
      << QString::fromUtf8(R"te(test.te:1:17: error: reduce axis domain (3, 3) is empty
  k = reduce_axis((3, 3), "k")
                  ^~~~~~
)te");
  QTest::newRow("positional_after_keyword") << QString::fromUtf8(R"te(A = placeholder(shape=(4,), "float32")
)te")
      << QStringLiteral("te.unexpected-token")
      << QString::fromUtf8(R"te(test.te:1:29: error: positional argument follows keyword argument
  A = placeholder(shape=(4,), "float32")
                              ^~~~~~~~~
)te");
  QTest::newRow("bad_dtype_type") << QString::fromUtf8(R"te(A = placeholder((4,), dtype=32, name="A")
)te")
      << QStringLiteral("te.bad-argument")
      << QString::fromUtf8(R"te(test.te:1:29: error: dtype must be a string such as "float32", got int 32
  A = placeholder((4,), dtype=32, name="A")
                              ^~
)te");
  QTest::newRow("attribute_on_int") << QString::fromUtf8(R"te(n = 4
x = n.shape
)te")
      << QStringLiteral("te.unknown-attribute")
      << QString::fromUtf8(R"te(test.te:2:5: error: int 4 has no attribute 'shape'
  x = n.shape
      ^~~~~~~
)te");
  QTest::newRow("reduction_outside_compute") << QString::fromUtf8(R"te(x = sum(1.0, axis=reduce_axis((0, 4), "k"))
)te")
      << QStringLiteral("te.reduction-not-top-level")
      << QString::fromUtf8(R"te(test.te:1:5: error: reduction must be the top level expression of compute
  x = sum(1.0, axis=reduce_axis((0, 4), "k"))
      ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
)te");
  QTest::newRow("max_three_args") << QString::fromUtf8(R"te(A = placeholder((4,), name="A")
B = compute((4,), lambda i: max(A[i], 0.0, 1.0), name="B")
)te")
      << QStringLiteral("te.argument-count")
      << QString::fromUtf8(R"te(test.te:2:29: error: max() takes two values (elementwise) or an expression and axis= (reduction), 3 given
  B = compute((4,), lambda i: max(A[i], 0.0, 1.0), name="B")
                              ^~~~~~~~~~~~~~~~~~~
)te");
}

void TstTeErrors::diagnostics() {
  QFETCH(QString, source);
  QFETCH(QString, code);
  QFETCH(QString, rendered);
  const std::string src = source.toStdString();
  auto result = parseTe(src, "test.te");
  QVERIFY2(!result, "expected a diagnostic");
  QCOMPARE(QString::fromStdString(result.error().code), code);
  QCOMPARE(QString::fromStdString(loopscape::renderDiagnostic(result.error(), src)), rendered);
}

void TstTeErrors::fuzzNeverCrashes() {
  std::vector<std::string> seeds;
  const QDir dir(QStringLiteral(LS_SOURCE_DIR "/samples"));
  for (const auto& name : dir.entryList({QStringLiteral("*.te")}, QDir::Files, QDir::Name)) {
    QFile f(dir.filePath(name));
    QVERIFY(f.open(QIODevice::ReadOnly));
    seeds.push_back(f.readAll().toStdString());
  }
  QVERIFY(seeds.size() >= 8);
  std::mt19937 rng(12345);
  int accepted = 0, rejected = 0;
  auto run = [&](const std::string& text) {
    auto r = parseTe(text, "fuzz.te");
    if (r) {
      ++accepted;
    } else {
      ++rejected;
      (void)loopscape::renderDiagnostic(r.error(), text); // rendering must not crash either
      QVERIFY(!r.error().code.empty());
      QVERIFY(r.error().code.rfind("te.", 0) == 0);
    }
  };
  // Every prefix of every sample (truncations cut tokens, strings, brackets, lines).
  for (const auto& s : seeds)
    for (std::size_t n = 0; n <= s.size(); n += 7) run(s.substr(0, n));
  // Random byte strings, and random byte strings over the language's alphabet.
  const std::string alphabet = "A[i, k]()=+-*/%<>.,:;\"'\\#\n lambda sum compute placeholder reduce_axis 0123456789 e x";
  for (int t = 0; t < 300; ++t) {
    std::string s(rng() % 80, ' ');
    for (auto& c : s) c = static_cast<char>(t % 2 ? rng() % 256 : alphabet[rng() % alphabet.size()]);
    run(s);
  }
  // Mutations of the samples: delete, duplicate or replace a random byte range.
  for (int t = 0; t < 400; ++t) {
    std::string s = seeds[rng() % seeds.size()];
    std::size_t pos = rng() % s.size(), len = 1 + rng() % 12;
    switch (rng() % 3) {
    case 0: s.erase(pos, len); break;
    case 1: s.insert(pos, s.substr(pos, len)); break;
    default: s[pos] = alphabet[rng() % alphabet.size()]; break;
    }
    run(s);
  }
  // Pathological nesting must be reported, not overflow the stack.
  run("x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n");
  run("x = " + std::string(5000, '-') + "1\n");
  run("x = [" + std::string(5000, '[') + "\n");
  std::string chain = "x = 1";
  for (int i = 0; i < 20000; ++i) chain += i % 2 ? "+1" : ".a";
  run(chain + "\n");
  chain = "x = 1";
  for (int i = 0; i < 20000; ++i) chain += " + 1";
  auto longChain = parseTe(chain + "\n", "chain.te");
  QVERIFY(!longChain);
  QCOMPARE(QString::fromStdString(longChain.error().code), QStringLiteral("te.too-deep"));
  QVERIFY(accepted > 0);
  QVERIFY(rejected > 0);
}

QTEST_GUILESS_MAIN(TstTeErrors)
#include "tst_te_errors.moc"
