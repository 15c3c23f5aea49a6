/*
 * Raw ISA-L encode throughput on given matrices: the baseline our JNI coder is measured against.
 * Input (stdin or file): records "name k rows" followed by rows*k coefficients. Arguments: cell sizes in
 * bytes. Output: one line per (matrix, cell): "name cell gbps" where gbps counts data bytes encoded per
 * second (k * cell per encode), the convention of ISA-L's own perf tests.
 * The best of ISAL_BENCH_INTERVALS (default 5) equal intervals of ISAL_BENCH_SECONDS in all is printed.
 * ISAL_BENCH_WORKING_SET (bytes): each encode works on the next of a rotating set of stripes at least that
 * large (at least two), so inputs stream from memory as the coder benchmark's do; unset: one stripe.
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

/*
 * Every cell at the same offset in its 4 KiB page, as the JVM lays out the direct buffers the coder benchmark
 * (and HDFS) hands over: each its own malloc, page-aligned plus a header, sliced to 64 bytes. The layout matters:
 * streams at one page offset share L1 sets and alias in the store buffer, and RS(10,4) from memory runs about 30%
 * faster with its 14 cells staggered by 256 bytes (benchmarks/HISTORY.md, "Coder benchmarks, inputs streamed from
 * memory"), as glibc staggers them once its mmap threshold has grown. Both sides of nativeVsIsal must see the same
 * layout.
 */
#define LAYOUT_OFFSET 64

static unsigned char *cell_buffer(int cell) {
  unsigned char *p;
  if (posix_memalign((void **) &p, 4096, (size_t) cell + 4096) != 0) {
    return NULL;
  }
  return p + LAYOUT_OFFSET;
}

int main(int argc, char **argv) {
  double seconds = getenv("ISAL_BENCH_SECONDS") ? atof(getenv("ISAL_BENCH_SECONDS")) : 1.0;
  double workingSet = getenv("ISAL_BENCH_WORKING_SET") ? atof(getenv("ISAL_BENCH_WORKING_SET")) : 0;
  int intervals = getenv("ISAL_BENCH_INTERVALS") ? atoi(getenv("ISAL_BENCH_INTERVALS")) : 5;
  if (intervals < 1) intervals = 1;
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
      double stripe = (double) (k + rows) * cell;
      int sets = workingSet > 0 ? (int) ((workingSet + stripe - 1) / stripe) : 1;
      if (workingSet > 0 && sets < 2) sets = 2;
      unsigned char ***in = malloc(sizeof(unsigned char **) * sets);
      unsigned char ***out = malloc(sizeof(unsigned char **) * sets);
      for (int s = 0; s < sets; s++) {
        in[s] = malloc(sizeof(unsigned char *) * k);
        out[s] = malloc(sizeof(unsigned char *) * rows);
        for (int i = 0; i < k; i++) {
          if ((in[s][i] = cell_buffer(cell)) == NULL) return 1;
          for (int j = 0; j < cell; j++) in[s][i][j] = (unsigned char) (j * 131 + i * 7 + s);
        }
        for (int i = 0; i < rows; i++) {
          if ((out[s][i] = cell_buffer(cell)) == NULL) return 1;
          memset(out[s][i], 0, cell);
        }
      }
      for (int s = 0; s < sets; s++) ec_encode_data(cell, k, rows, tables, in[s], out[s]);
      /* Best of equal intervals, as the coder benchmark reports its best iteration (other jobs on a shared machine
       * only slow an interval down); BenchCoders makes them as long as its iterations, or the best of many short
       * intervals would flatter this side. */
      double best = 0;
      int s = 0;
      for (int interval = 0; interval < intervals; interval++) {
        long iters = 0;
        double t0 = now(), t;
        do {
          for (int r = 0; r < 4; r++) {
            ec_encode_data(cell, k, rows, tables, in[s], out[s]);
            s = s + 1 == sets ? 0 : s + 1;
          }
          iters += 4;
          t = now();
        } while (t - t0 < seconds / intervals);
        double gbps = (double) k * cell * iters / (t - t0) / 1e9;
        best = gbps > best ? gbps : best;
      }
      printf("%s %d %.3f\n", name, cell, best);
      fflush(stdout);
      for (int s2 = 0; s2 < sets; s2++) {
        for (int i = 0; i < k; i++) free(in[s2][i] - LAYOUT_OFFSET);
        for (int i = 0; i < rows; i++) free(out[s2][i] - LAYOUT_OFFSET);
        free(in[s2]);
        free(out[s2]);
      }
      free(in);
      free(out);
    }
    free(tables);
    free(a);
  }
  return 0;
}
