/* PolyBench 4.2 atax (float32), exactly as PolyBench: tmp = A x, y = A^T tmp, in
 * PolyBench's fused loop nest. */
#include "harness.h"
#ifndef M
#define M 390
#endif
#ifndef N
#define N 410
#endif

static float *A, *x, *y, *tmp;

__attribute__((noinline)) static void kernel_atax(float A[M][N], float x[N], float y[N], float tmp[M]) {
  for (int i = 0; i < N; i++)
    y[i] = 0.0f;
  for (int i = 0; i < M; i++) {
    tmp[i] = 0.0f;
    for (int j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (int j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}

static void run(void) { kernel_atax((float(*)[N])A, x, y, tmp); }

int main(int argc, char** argv) {
  A = pb_alloc((long)M * N), x = pb_alloc(N), y = pb_alloc(N), tmp = pb_alloc(M);
  pb_array in[] = {{"A", A, 2, {M, N}}, {"x", x, 1, {N}}};
  pb_array out[] = {{"y", y, 1, {N}}};
  return pb_main(argc, argv, in, 2, out, 1, run);
}
