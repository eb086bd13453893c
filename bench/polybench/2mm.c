/* PolyBench 4.2 2mm as samples/polybench/2mm.te formulates it (float32): tmp = alpha*A*B,
 * tmpC = tmp*C (sums from zero), D_out = beta*D + tmpC. See harness.h for options. */
#include "harness.h"
#ifndef NI
#define NI 180
#endif
#ifndef NJ
#define NJ 190
#endif
#ifndef NK
#define NK 210
#endif
#ifndef NL
#define NL 220
#endif

static float *A, *B, *C, *D, *tmp, *tmpC, *D_out;

__attribute__((noinline)) static void kernel_2mm(float A[NI][NK], float B[NK][NJ], float C[NJ][NL], float D[NI][NL],
                                                 float tmp[NI][NJ], float tmpC[NI][NL], float D_out[NI][NL]) {
  const float alpha = 1.5f, beta = 1.2f;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      tmp[i][j] = 0.0f;
      for (int k = 0; k < NK; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++) {
      tmpC[i][j] = 0.0f;
      for (int k = 0; k < NJ; ++k)
        tmpC[i][j] += tmp[i][k] * C[k][j];
    }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NL; j++)
      D_out[i][j] = beta * D[i][j] + tmpC[i][j];
}

static void run(void) {
  kernel_2mm((float(*)[NK])A, (float(*)[NJ])B, (float(*)[NL])C, (float(*)[NL])D, (float(*)[NJ])tmp, (float(*)[NL])tmpC,
             (float(*)[NL])D_out);
}

int main(int argc, char** argv) {
  A = pb_alloc((long)NI * NK), B = pb_alloc((long)NK * NJ), C = pb_alloc((long)NJ * NL), D = pb_alloc((long)NI * NL);
  tmp = pb_alloc((long)NI * NJ), tmpC = pb_alloc((long)NI * NL), D_out = pb_alloc((long)NI * NL);
  pb_array in[] = {{"A", A, 2, {NI, NK}}, {"B", B, 2, {NK, NJ}}, {"C", C, 2, {NJ, NL}}, {"D", D, 2, {NI, NL}}};
  pb_array out[] = {{"D_out", D_out, 2, {NI, NL}}};
  return pb_main(argc, argv, in, 4, out, 1, run);
}
