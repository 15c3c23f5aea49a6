/*
 * Raw ISA-L encode throughput on given matrices: the baseline our JNI coder is measured against.
 * Input (stdin or file): records "name k rows" followed by rows*k coefficients. Arguments: cell sizes in
 * bytes. Output: one line per (matrix, cell): "name cell gbps" where gbps counts data bytes encoded per
 * second (k * cell per encode), the convention of ISA-L's own perf tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <isa-l/erasure_code.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  double seconds = getenv("ISAL_BENCH_SECONDS") ? atof(getenv("ISAL_BENCH_SECONDS")) : 1.0;
  char name[256];
  int k, rows;
  while (scanf("%255s %d %d", name, &k, &rows) == 3) {
    unsigned char *a = malloc((size_t) k * rows);
    for (int i = 0; i < k * rows; i++) {
      int v;
      if (scanf("%d", &v) != 1) {
        fprintf(stderr, "isal_bench: short matrix %s\n", name);
        return 1;
      }
      a[i] = (unsigned char) v;
    }
    unsigned char *tables = malloc((size_t) 32 * k * rows);
    ec_init_tables(k, rows, a, tables);
    for (int ci = 1; ci < argc; ci++) {
      int cell = atoi(argv[ci]);
      unsigned char **in = malloc(sizeof(unsigned char *) * k);
      unsigned char **out = malloc(sizeof(unsigned char *) * rows);
      for (int i = 0; i < k; i++) {
        if (posix_memalign((void **) &in[i], 64, cell) != 0) return 1;
        for (int j = 0; j < cell; j++) in[i][j] = (unsigned char) rand();
      }
      for (int i = 0; i < rows; i++) {
        if (posix_memalign((void **) &out[i], 64, cell) != 0) return 1;
      }
      ec_encode_data(cell, k, rows, tables, in, out);
      long iters = 0;
      double t0 = now(), t;
      do {
        for (int r = 0; r < 4; r++) ec_encode_data(cell, k, rows, tables, in, out);
        iters += 4;
        t = now();
      } while (t - t0 < seconds);
      printf("%s %d %.3f\n", name, cell, (double) k * cell * iters / (t - t0) / 1e9);
      fflush(stdout);
      for (int i = 0; i < k; i++) free(in[i]);
      for (int i = 0; i < rows; i++) free(out[i]);
      free(in);
      free(out);
    }
    free(tables);
    free(a);
  }
  return 0;
}
