/* PolyBench 4.2 jacobi-2d as samples/polybench/jacobi-2d.te formulates it (float32): one
 * time-expanded array S[2*TSTEPS+1][N][N], S[0] = A, S[t] = one Jacobi half-step of
 * S[t-1] inside, B's (odd t) or A's (even t) border. */
#include "harness.h"
#ifndef TSTEPS
#define TSTEPS 100
#endif
#ifndef N
#define N 250
#endif
#define T (2 * TSTEPS + 1)

static float *A, *B, *S;

__attribute__((noinline)) static void kernel_jacobi_2d(float A[N][N], float B[N][N], float S[T][N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      S[0][i][j] = A[i][j];
  for (int t = 1; t < T; t++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        S[t][i][j] = i > 0 && i < N - 1 && j > 0 && j < N - 1
                         ? 0.2f * (S[t - 1][i][j] + S[t - 1][i][j - 1] + S[t - 1][i][j + 1] + S[t - 1][i + 1][j] +
                                   S[t - 1][i - 1][j])
                         : (t % 2 == 1 ? B[i][j] : A[i][j]);
}

static void run(void) { kernel_jacobi_2d((float(*)[N])A, (float(*)[N])B, (float(*)[N][N])S); }

int main(int argc, char** argv) {
  A = pb_alloc((long)N * N), B = pb_alloc((long)N * N), S = pb_alloc((long)T * N * N);
  pb_array in[] = {{"A", A, 2, {N, N}}, {"B", B, 2, {N, N}}};
  pb_array out[] = {{"jacobi", S, 3, {T, N, N}}};
  return pb_main(argc, argv, in, 2, out, 1, run);
}
