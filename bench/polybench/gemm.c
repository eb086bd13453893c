/* PolyBench 4.2 gemm as samples/polybench/gemm.te formulates it (float32): AB = the sum of
 * alpha*A[i][k]*B[k][j] from zero, then C_out = beta*C + AB. See harness.h for options. */
#include "harness.h"
#ifndef NI
#define NI 200
#endif
#ifndef NJ
#define NJ 220
#endif
#ifndef NK
#define NK 240
#endif

static float *A, *B, *C, *AB, *C_out;

__attribute__((noinline)) static void kernel_gemm(float A[NI][NK], float B[NK][NJ], float C[NI][NJ], float AB[NI][NJ],
                                                  float C_out[NI][NJ]) {
  const float alpha = 1.5f, beta = 1.2f;
  for (int i = 0; i < NI; i++) {
    for (int j = 0; j < NJ; j++)
      AB[i][j] = 0.0f;
    for (int k = 0; k < NK; k++)
      for (int j = 0; j < NJ; j++)
        AB[i][j] += alpha * A[i][k] * B[k][j];
  }
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      C_out[i][j] = beta * C[i][j] + AB[i][j];
}

static void run(void) {
  kernel_gemm((float(*)[NK])A, (float(*)[NJ])B, (float(*)[NJ])C, (float(*)[NJ])AB, (float(*)[NJ])C_out);
}

int main(int argc, char** argv) {
  A = pb_alloc((long)NI * NK), B = pb_alloc((long)NK * NJ), C = pb_alloc((long)NI * NJ);
  AB = pb_alloc((long)NI * NJ), C_out = pb_alloc((long)NI * NJ);
  pb_array in[] = {{"A", A, 2, {NI, NK}}, {"B", B, 2, {NK, NJ}}, {"C", C, 2, {NI, NJ}}};
  pb_array out[] = {{"C_out", C_out, 2, {NI, NJ}}};
  return pb_main(argc, argv, in, 3, out, 1, run);
}
