/* PolyBench 4.2 heat-3d as samples/polybench/heat-3d.te formulates it (float32): one
 * time-expanded array S[2*TSTEPS+1][N][N][N], S[0] = A, S[t] = one heat half-step of
 * S[t-1] inside, the previous border outside. */
#include "harness.h"
#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef N
#define N 40
#endif
#define T (2 * TSTEPS + 1)

static float *A, *S;

__attribute__((noinline)) static void kernel_heat_3d(float A[N][N][N], float S[T][N][N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        S[0][i][j][k] = A[i][j][k];
  for (int t = 1; t < T; t++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++)
          S[t][i][j][k] =
              i > 0 && i < N - 1 && j > 0 && j < N - 1 && k > 0 && k < N - 1
                  ? 0.125f * (S[t - 1][i + 1][j][k] - 2.0f * S[t - 1][i][j][k] + S[t - 1][i - 1][j][k]) +
                        0.125f * (S[t - 1][i][j + 1][k] - 2.0f * S[t - 1][i][j][k] + S[t - 1][i][j - 1][k]) +
                        0.125f * (S[t - 1][i][j][k + 1] - 2.0f * S[t - 1][i][j][k] + S[t - 1][i][j][k - 1]) +
                        S[t - 1][i][j][k]
                  : S[t - 1][i][j][k];
}

static void run(void) { kernel_heat_3d((float(*)[N][N])A, (float(*)[N][N][N])S); }

int main(int argc, char** argv) {
  A = pb_alloc((long)N * N * N), S = pb_alloc((long)T * N * N * N);
  pb_array in[] = {{"A", A, 3, {N, N, N}}};
  pb_array out[] = {{"heat", S, 4, {T, N, N, N}}};
  return pb_main(argc, argv, in, 1, out, 1, run);
}
