/* PolyBench 4.2 covariance as samples/polybench/covariance.te formulates it (float32):
 * mean = (column sums) / float_n, centered = data - mean (a new array), cov = (full
 * M x M square of centered^T centered) / (float_n - 1). */
#include "harness.h"
#ifndef M
#define M 240
#endif
#ifndef N
#define N 260
#endif

static float *data, *mean_sum, *mean, *centered, *cov_sum, *cov;

__attribute__((noinline)) static void kernel_covariance(float data[N][M], float mean_sum[M], float mean[M],
                                                        float centered[N][M], float cov_sum[M][M], float cov[M][M]) {
  const float float_n = (float)N;
  for (int j = 0; j < M; j++) {
    mean_sum[j] = 0.0f;
    for (int i = 0; i < N; i++)
      mean_sum[j] += data[i][j];
  }
  for (int j = 0; j < M; j++)
    mean[j] = mean_sum[j] / float_n;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      centered[i][j] = data[i][j] - mean[j];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      cov_sum[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        cov_sum[i][j] += centered[k][i] * centered[k][j];
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      cov[i][j] = cov_sum[i][j] / (float_n - 1.0f);
}

static void run(void) {
  kernel_covariance((float(*)[M])data, mean_sum, mean, (float(*)[M])centered, (float(*)[M])cov_sum, (float(*)[M])cov);
}

int main(int argc, char** argv) {
  data = pb_alloc((long)N * M), mean_sum = pb_alloc(M), mean = pb_alloc(M), centered = pb_alloc((long)N * M);
  cov_sum = pb_alloc((long)M * M), cov = pb_alloc((long)M * M);
  pb_array in[] = {{"data", data, 2, {N, M}}};
  pb_array out[] = {{"mean", mean, 1, {M}}, {"cov", cov, 2, {M, M}}};
  return pb_main(argc, argv, in, 1, out, 2, run);
}
