/* The main of every bench/polybench/<kernel>.c: the kernel file lists its input and
 * output arrays and a function that runs the kernel once; pb_main allocates nothing, it
 *   --inputs DIR       reads each input NAME from DIR/NAME.npy (else fills it with
 *                      deterministic values in [-1, 1), as pb_fill below),
 *   --dump-inputs DIR  writes the inputs it used to DIR/NAME.npy,
 *   --save DIR         writes each output to DIR/NAME.npy after the timed runs,
 *   --warmup W, --repeat R  untimed and timed calls (default 1 and 5),
 * and prints "median_ms: X" (the median of the timed calls) and "min_ms: X". Sizes are
 * the kernel file's macros (-DN=...). */
#ifndef LOOPSCAPE_BENCH_HARNESS_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define LOOPSCAPE_BENCH_HARNESS_H

#include "npy.h"

#include <stdint.h>
#include <time.h>

typedef struct {
  const char* name;
  float* data;
  int ndim;
  long shape[4];
} pb_array;

static long pb_count(const pb_array* a) {
  long n = 1;
  for (int d = 0; d < a->ndim; ++d)
    n *= a->shape[d];
  return n;
}

/* Allocates an array of `count` floats or exits. */
static float* pb_alloc(long count) {
  float* p = (float*)aligned_alloc(64, (size_t)((count * (long)sizeof(float) + 63) / 64 * 64));
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  memset(p, 0, (size_t)count * sizeof(float));
  return p;
}

/* Deterministic values in [-1, 1): a 64-bit LCG per array, seeded by its position. */
static void pb_fill(float* p, long count, uint64_t seed) {
  uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (long i = 0; i < count; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
  }
}

static double pb_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int pb_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static int pb_main(int argc, char** argv, pb_array* in, int nin, pb_array* out, int nout, void (*run)(void)) {
  const char *inputs = NULL, *dump = NULL, *save = NULL;
  int warmup = 1, repeat = 5;
  for (int i = 1; i < argc; i += 2) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fprintf(stderr, "usage: %s [--inputs DIR] [--dump-inputs DIR] [--save DIR] [--warmup W] [--repeat R]\n", argv[0]);
      return 2;
    }
    if (!strcmp(a, "--inputs"))
      inputs = v;
    else if (!strcmp(a, "--dump-inputs"))
      dump = v;
    else if (!strcmp(a, "--save"))
      save = v;
    else if (!strcmp(a, "--warmup"))
      warmup = atoi(v);
    else if (!strcmp(a, "--repeat"))
      repeat = atoi(v) > 0 ? atoi(v) : 1;
    else {
      fprintf(stderr, "unknown option %s\n", a);
      return 2;
    }
  }
  char path[4096];
  for (int k = 0; k < nin; ++k) {
    if (inputs) {
      snprintf(path, sizeof path, "%s/%s.npy", inputs, in[k].name);
      if (npy_read_f32(path, in[k].data, in[k].ndim, in[k].shape)) return 1;
    } else {
      pb_fill(in[k].data, pb_count(&in[k]), (uint64_t)k);
    }
    if (dump) {
      snprintf(path, sizeof path, "%s/%s.npy", dump, in[k].name);
      if (npy_write_f32(path, in[k].data, in[k].ndim, in[k].shape)) return 1;
    }
  }
  for (int w = 0; w < warmup; ++w)
    run();
  double* t = (double*)malloc(sizeof(double) * (size_t)repeat);
  for (int r = 0; r < repeat; ++r) {
    double t0 = pb_now_ms();
    run();
    t[r] = pb_now_ms() - t0;
  }
  qsort(t, (size_t)repeat, sizeof(double), pb_cmp_double);
  double median = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
  printf("median_ms: %.6f\nmin_ms: %.6f\n", median, t[0]);
  free(t);
  for (int k = 0; save && k < nout; ++k) {
    snprintf(path, sizeof path, "%s/%s.npy", save, out[k].name);
    if (npy_write_f32(path, out[k].data, out[k].ndim, out[k].shape)) return 1;
  }
  return 0;
}

#endif
