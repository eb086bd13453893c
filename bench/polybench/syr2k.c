/* PolyBench 4.2 syr2k as samples/polybench/syr2k.te formulates it (float32): ABT =
 * sum of A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k] over the full square (from zero),
 * then C_out = beta*C + ABT on the lower triangle j <= i and C above it. */
#include "harness.h"
#ifndef M
#define M 200
#endif
#ifndef N
#define N 240
#endif

static float *A, *B, *C, *ABT, *C_out;

__attribute__((noinline)) static void kernel_syr2k(float A[N][M], float B[N][M], float C[N][N], float ABT[N][N],
                                                   float C_out[N][N]) {
  const float alpha = 1.5f, beta = 1.2f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      ABT[i][j] = 0.0f;
      for (int k = 0; k < M; k++)
        ABT[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      C_out[i][j] = j <= i ? beta * C[i][j] + ABT[i][j] : C[i][j];
}

static void run(void) {
  kernel_syr2k((float(*)[M])A, (float(*)[M])B, (float(*)[N])C, (float(*)[N])ABT, (float(*)[N])C_out);
}

int main(int argc, char** argv) {
  A = pb_alloc((long)N * M), B = pb_alloc((long)N * M), C = pb_alloc((long)N * N), ABT = pb_alloc((long)N * N),
  C_out = pb_alloc((long)N * N);
  pb_array in[] = {{"A", A, 2, {N, M}}, {"B", B, 2, {N, M}}, {"C", C, 2, {N, N}}};
  pb_array out[] = {{"C_out", C_out, 2, {N, N}}};
  return pb_main(argc, argv, in, 3, out, 1, run);
}
