/* PolyBench 4.2 bicg (float32), exactly as PolyBench: s = A^T r and q = A p in one loop
 * nest. */
#include "harness.h"
#ifndef M
#define M 390
#endif
#ifndef N
#define N 410
#endif

static float *A, *r, *p, *s, *q;

__attribute__((noinline)) static void kernel_bicg(float A[N][M], float s[M], float q[N], float p[M], float r[N]) {
  for (int i = 0; i < M; i++)
    s[i] = 0.0f;
  for (int i = 0; i < N; i++) {
    q[i] = 0.0f;
    for (int j = 0; j < M; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}

static void run(void) { kernel_bicg((float(*)[M])A, s, q, p, r); }

int main(int argc, char** argv) {
  A = pb_alloc((long)N * M), r = pb_alloc(N), p = pb_alloc(M), s = pb_alloc(M), q = pb_alloc(N);
  pb_array in[] = {{"A", A, 2, {N, M}}, {"r", r, 1, {N}}, {"p", p, 1, {M}}};
  pb_array out[] = {{"s", s, 1, {M}}, {"q", q, 1, {N}}};
  return pb_main(argc, argv, in, 3, out, 2, run);
}
