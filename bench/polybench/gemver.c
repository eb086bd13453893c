/* PolyBench 4.2 gemver as samples/polybench/gemver.te formulates it (float32): A_out is
 * exact; beta A^T y and alpha A x are sums from zero to which x (then z) and w are added. */
#include "harness.h"
#ifndef N
#define N 400
#endif

static float *A, *u1, *v1, *u2, *v2, *w, *x, *y, *z, *A_out, *xs, *x_out, *ws, *w_out;

__attribute__((noinline)) static void kernel_gemver(float A[N][N], float u1[N], float v1[N], float u2[N], float v2[N],
                                                    float w[N], float x[N], float y[N], float z[N], float A_out[N][N],
                                                    float xs[N], float x_out[N], float ws[N], float w_out[N]) {
  const float alpha = 1.5f, beta = 1.2f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A_out[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (int i = 0; i < N; i++) {
    xs[i] = 0.0f;
    for (int j = 0; j < N; j++)
      xs[i] = xs[i] + beta * A_out[j][i] * y[j];
  }
  for (int i = 0; i < N; i++)
    x_out[i] = x[i] + xs[i] + z[i];
  for (int i = 0; i < N; i++) {
    ws[i] = 0.0f;
    for (int j = 0; j < N; j++)
      ws[i] = ws[i] + alpha * A_out[i][j] * x_out[j];
  }
  for (int i = 0; i < N; i++)
    w_out[i] = w[i] + ws[i];
}

static void run(void) {
  kernel_gemver((float(*)[N])A, u1, v1, u2, v2, w, x, y, z, (float(*)[N])A_out, xs, x_out, ws, w_out);
}

int main(int argc, char** argv) {
  A = pb_alloc((long)N * N), u1 = pb_alloc(N), v1 = pb_alloc(N), u2 = pb_alloc(N), v2 = pb_alloc(N);
  w = pb_alloc(N), x = pb_alloc(N), y = pb_alloc(N), z = pb_alloc(N);
  A_out = pb_alloc((long)N * N), xs = pb_alloc(N), x_out = pb_alloc(N), ws = pb_alloc(N), w_out = pb_alloc(N);
  pb_array in[] = {{"A", A, 2, {N, N}}, {"u1", u1, 1, {N}}, {"v1", v1, 1, {N}}, {"u2", u2, 1, {N}}, {"v2", v2, 1, {N}},
                   {"w", w, 1, {N}},    {"x", x, 1, {N}},   {"y", y, 1, {N}},   {"z", z, 1, {N}}};
  pb_array out[] = {{"A_out", A_out, 2, {N, N}}, {"x_out", x_out, 1, {N}}, {"w_out", w_out, 1, {N}}};
  return pb_main(argc, argv, in, 9, out, 3, run);
}
