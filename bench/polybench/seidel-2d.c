/* PolyBench 4.2 seidel-2d (float32) as samples/polybench/seidel-2d.py: B = A, then
 * PolyBench's in-place Gauss-Seidel sweeps on B, exactly. */
#include "harness.h"
#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef N
#define N 400
#endif

static float *A, *B;

__attribute__((noinline)) static void kernel_seidel_2d(float A[N][N], float B[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      B[i][j] = A[i][j];
  for (int t = 0; t <= TSTEPS - 1; t++)
    for (int i = 1; i <= N - 2; i++)
      for (int j = 1; j <= N - 2; j++)
        B[i][j] = (B[i - 1][j - 1] + B[i - 1][j] + B[i - 1][j + 1] + B[i][j - 1] + B[i][j] + B[i][j + 1] +
                   B[i + 1][j - 1] + B[i + 1][j] + B[i + 1][j + 1]) /
                  9.0f;
}

static void run(void) { kernel_seidel_2d((float(*)[N])A, (float(*)[N])B); }

int main(int argc, char** argv) {
  A = pb_alloc((long)N * N), B = pb_alloc((long)N * N);
  pb_array in[] = {{"A", A, 2, {N, N}}};
  pb_array out[] = {{"B", B, 2, {N, N}}};
  return pb_main(argc, argv, in, 1, out, 1, run);
}
