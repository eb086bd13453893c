/* PolyBench 4.2 syrk as samples/polybench/syrk.te formulates it (float32): AAT =
 * alpha*A*A^T over the full square (sums from zero), then C_out = beta*C + AAT on the
 * lower triangle j <= i and C above it. */
#include "harness.h"
#ifndef M
#define M 200
#endif
#ifndef N
#define N 240
#endif

static float *A, *C, *AAT, *C_out;

__attribute__((noinline)) static void kernel_syrk(float A[N][M], float C[N][N], float AAT[N][N], float C_out[N][N]) {
  const float alpha = 1.5f, beta = 1.2f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      AAT[i][j] = 0.0f;
      for (int k = 0; k < M; k++)
        AAT[i][j] += alpha * A[i][k] * A[j][k];
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      C_out[i][j] = j <= i ? beta * C[i][j] + AAT[i][j] : C[i][j];
}

static void run(void) { kernel_syrk((float(*)[M])A, (float(*)[N])C, (float(*)[N])AAT, (float(*)[N])C_out); }

int main(int argc, char** argv) {
  A = pb_alloc((long)N * M), C = pb_alloc((long)N * N), AAT = pb_alloc((long)N * N), C_out = pb_alloc((long)N * N);
  pb_array in[] = {{"A", A, 2, {N, M}}, {"C", C, 2, {N, N}}};
  pb_array out[] = {{"C_out", C_out, 2, {N, N}}};
  return pb_main(argc, argv, in, 2, out, 1, run);
}
