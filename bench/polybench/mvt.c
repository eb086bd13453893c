/* PolyBench 4.2 mvt as samples/polybench/mvt.te formulates it (float32): the products
 * A y_1 and A^T y_2 are sums from zero, then x1 and x2 are added. */
#include "harness.h"
#ifndef N
#define N 400
#endif

static float *A, *x1, *x2, *y_1, *y_2, *Ay1, *ATy2, *x1_out, *x2_out;

__attribute__((noinline)) static void kernel_mvt(float A[N][N], float x1[N], float x2[N], float y_1[N], float y_2[N],
                                                 float Ay1[N], float ATy2[N], float x1_out[N], float x2_out[N]) {
  for (int i = 0; i < N; i++) {
    Ay1[i] = 0.0f;
    for (int j = 0; j < N; j++)
      Ay1[i] = Ay1[i] + A[i][j] * y_1[j];
  }
  for (int i = 0; i < N; i++) {
    ATy2[i] = 0.0f;
    for (int j = 0; j < N; j++)
      ATy2[i] = ATy2[i] + A[j][i] * y_2[j];
  }
  for (int i = 0; i < N; i++)
    x1_out[i] = x1[i] + Ay1[i];
  for (int i = 0; i < N; i++)
    x2_out[i] = x2[i] + ATy2[i];
}

static void run(void) { kernel_mvt((float(*)[N])A, x1, x2, y_1, y_2, Ay1, ATy2, x1_out, x2_out); }

int main(int argc, char** argv) {
  A = pb_alloc((long)N * N), x1 = pb_alloc(N), x2 = pb_alloc(N), y_1 = pb_alloc(N), y_2 = pb_alloc(N);
  Ay1 = pb_alloc(N), ATy2 = pb_alloc(N), x1_out = pb_alloc(N), x2_out = pb_alloc(N);
  pb_array in[] = {
      {"A", A, 2, {N, N}}, {"x1", x1, 1, {N}}, {"x2", x2, 1, {N}}, {"y_1", y_1, 1, {N}}, {"y_2", y_2, 1, {N}}};
  pb_array out[] = {{"x1_out", x1_out, 1, {N}}, {"x2_out", x2_out, 1, {N}}};
  return pb_main(argc, argv, in, 5, out, 2, run);
}
