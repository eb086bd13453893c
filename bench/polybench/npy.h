/* Minimal .npy (format 1.0/2.0) reading and writing of C-ordered little-endian float32
 * arrays, for the PolyBench loop nests of bench/polybench.py: they read the inputs that
 * bench/polybench.py hands to loopscape-cli and write their outputs for comparison.
 * Header-only, C99, no dependencies. Each function returns 0 on success and -1 on failure
 * (with a message on stderr). */
#ifndef LOOPSCAPE_BENCH_NPY_H
#define LOOPSCAPE_BENCH_NPY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAX_DIMS 8

/* Writes `data` (count = product of shape) as a float32 .npy file. */
static int npy_write_f32(const char* path, const float* data, int ndim, const long* shape) {
  char dict[256];
  int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
  long count = 1;
  for (int d = 0; d < ndim; ++d) {
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%ld%s", shape[d], ndim == 1 ? "," : d + 1 < ndim ? ", " : "");
    count *= shape[d];
  }
  n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
  /* magic (6) + version (2) + header length (2) + dict + padding + '\n', a multiple of 64 */
  int total = 10 + n + 1;
  int pad = (64 - total % 64) % 64;
  FILE* f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "npy: cannot write %s\n", path);
    return -1;
  }
  unsigned short hlen = (unsigned short)(n + pad + 1);
  unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(dict, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  size_t written = fwrite(data, sizeof(float), (size_t)count, f);
  int bad = fclose(f) != 0 || written != (size_t)count;
  if (bad) fprintf(stderr, "npy: short write to %s\n", path);
  return bad ? -1 : 0;
}

/* Reads a float32 .npy file into `data`, which holds count = product of `shape` floats;
 * the file's shape must be `shape`. */
static int npy_read_f32(const char* path, float* data, int ndim, const long* shape) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "npy: cannot read %s\n", path);
    return -1;
  }
  unsigned char pre[12];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "npy: %s is not a .npy file\n", path);
    fclose(f);
    return -1;
  }
  size_t hlen;
  if (pre[6] == 1) {
    if (fread(pre + 8, 1, 2, f) != 2) goto bad;
    hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
  } else {
    if (fread(pre + 8, 1, 4, f) != 4) goto bad;
    hlen = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) | ((size_t)pre[11] << 24);
  }
  char* header = (char*)malloc(hlen + 1);
  if (!header || fread(header, 1, hlen, f) != hlen) {
    free(header);
    goto bad;
  }
  header[hlen] = '\0';
  if (!strstr(header, "'<f4'") || strstr(header, "'fortran_order': True")) {
    fprintf(stderr, "npy: %s is not a C-ordered float32 array: %s\n", path, header);
    free(header);
    fclose(f);
    return -1;
  }
  const char* s = strstr(header, "'shape': (");
  long got[NPY_MAX_DIMS];
  int gotDims = 0;
  long count = 1;
  if (s) {
    s += 10;
    while (*s && *s != ')' && gotDims < NPY_MAX_DIMS) {
      char* end;
      long v = strtol(s, &end, 10);
      if (end == s) break;
      got[gotDims++] = v;
      s = end;
      while (*s == ',' || *s == ' ')
        ++s;
    }
  }
  int same = gotDims == ndim;
  for (int d = 0; same && d < ndim; ++d)
    same = got[d] == shape[d];
  if (!same) {
    fprintf(stderr, "npy: %s has shape %s, expected %d dimensions\n", path, header, ndim);
    free(header);
    fclose(f);
    return -1;
  }
  free(header);
  for (int d = 0; d < ndim; ++d)
    count *= shape[d];
  if (fread(data, sizeof(float), (size_t)count, f) != (size_t)count) goto bad;
  fclose(f);
  return 0;
bad:
  fprintf(stderr, "npy: %s is truncated\n", path);
  fclose(f);
  return -1;
}

#endif
