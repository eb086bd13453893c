/* PolyBench 4.2 fdtd-2d as samples/polybench/fdtd-2d.te formulates it (float32): one
 * time-expanded state S[TMAX+1][3][NX][NY] (fields ex, ey, hz); step t computes ex and ey
 * from step t-1 as PolyBench does and hz from step t-1 with the new ex/ey it reads
 * recomputed, so the values are PolyBench's. */
#include "harness.h"
#ifndef TMAX
#define TMAX 100
#endif
#ifndef NX
#define NX 200
#endif
#ifndef NY
#define NY 240
#endif

static float *ex, *ey, *hz, *fict, *S;

#define P(f, i, j) S[t - 1][f][i][j]
#define EX_IN(i, j) (P(0, i, j) - 0.5f * (P(2, i, j) - P(2, i, (j)-1)))
#define EY_IN(i, j) (P(1, i, j) - 0.5f * (P(2, i, j) - P(2, (i)-1, j)))
#define NEW_EX(i, j) ((j) == 0 ? P(0, i, j) : EX_IN(i, j))
#define NEW_EY(i, j) ((i) == 0 ? fict[t - 1] : EY_IN(i, j))

__attribute__((noinline)) static void kernel_fdtd_2d(float ex[NX][NY], float ey[NX][NY], float hz[NX][NY],
                                                     float fict[TMAX], float S[TMAX + 1][3][NX][NY]) {
  for (int f = 0; f < 3; f++)
    for (int i = 0; i < NX; i++)
      for (int j = 0; j < NY; j++)
        S[0][f][i][j] = f == 0 ? ex[i][j] : f == 1 ? ey[i][j] : hz[i][j];
  for (int t = 1; t <= TMAX; t++)
    for (int f = 0; f < 3; f++)
      for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
          S[t][f][i][j] =
              f == 0   ? NEW_EX(i, j)
              : f == 1 ? NEW_EY(i, j)
                       : (i < NX - 1 && j < NY - 1
                              ? P(2, i, j) - 0.7f * (EX_IN(i, j + 1) - NEW_EX(i, j) + EY_IN(i + 1, j) - NEW_EY(i, j))
                              : P(2, i, j));
}

static void run(void) {
  kernel_fdtd_2d((float(*)[NY])ex, (float(*)[NY])ey, (float(*)[NY])hz, fict, (float(*)[3][NX][NY])S);
}

int main(int argc, char** argv) {
  ex = pb_alloc((long)NX * NY), ey = pb_alloc((long)NX * NY), hz = pb_alloc((long)NX * NY), fict = pb_alloc(TMAX);
  S = pb_alloc((long)(TMAX + 1) * 3 * NX * NY);
  pb_array in[] = {
      {"ex", ex, 2, {NX, NY}}, {"ey", ey, 2, {NX, NY}}, {"hz", hz, 2, {NX, NY}}, {"fict", fict, 1, {TMAX}}};
  pb_array out[] = {{"fdtd", S, 4, {TMAX + 1, 3, NX, NY}}};
  return pb_main(argc, argv, in, 4, out, 1, run);
}
