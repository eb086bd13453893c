/* PolyBench 4.2 3mm (float32), exactly as PolyBench: E = A*B, F = C*D, G = E*F. */
#include "harness.h"
#ifndef NI
#define NI 180
#endif
#ifndef NJ
#define NJ 190
#endif
#ifndef NK
#define NK 200
#endif
#ifndef NL
#define NL 210
#endif
#ifndef NM
#define NM 220
#endif

static float *A, *B, *C, *D, *E, *F, *G;

__attribute__((noinline)) static void kernel_3mm(float A[NI][NK], float B[NK][NJ], float C[NJ][NM], float D[NM][NL],
                                                 float E[NI][NJ], float F[NJ][NL], float G[NI][NL]) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      E[i][j] = 0.0f;
      for (int k = 0; k < NK; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (int i = 0; i < NJ; i++)
    for (int j = 0; j < NL; j++) {
      F[i][j] = 0.0f;
      for (int k = 0; k < NM; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) {
      G[i][j] = 0.0f;
      for (int k = 0; k < NJ; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
}

static void run(void) {
  kernel_3mm((float(*)[NK])A, (float(*)[NJ])B, (float(*)[NM])C, (float(*)[NL])D, (float(*)[NJ])E, (float(*)[NL])F,
             (float(*)[NL])G);
}

int main(int argc, char** argv) {
  A = pb_alloc((long)NI * NK), B = pb_alloc((long)NK * NJ), C = pb_alloc((long)NJ * NM), D = pb_alloc((long)NM * NL);
  E = pb_alloc((long)NI * NJ), F = pb_alloc((long)NJ * NL), G = pb_alloc((long)NI * NL);
  pb_array in[] = {{"A", A, 2, {NI, NK}}, {"B", B, 2, {NK, NJ}}, {"C", C, 2, {NJ, NM}}, {"D", D, 2, {NM, NL}}};
  pb_array out[] = {{"G", G, 2, {NI, NL}}};
  return pb_main(argc, argv, in, 4, out, 1, run);
}
