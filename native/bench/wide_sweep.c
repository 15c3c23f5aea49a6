/*
 * Sweep of the sliced multiply's knobs on inputs streamed from memory (as data reaches a coder from disks and
 * networks, never from cache): which sources-per-pass, slice, software prefetch distance and hint, compute step,
 * and non-temporal parity stores make a streamed encode fastest on this processor, next to plain ec_encode_data and
 * to memory-read probes (one stream, and g streams read interleaved one line at a time, the way ISA-L reads its
 * sources).
 *
 * The kernel here is the one of src/wideec_isal.c (compiled in from it, so the sweep measures the shipped code),
 * called with every combination; each combination is checked once against plain ec_encode_data.
 *
 * Usage: wide_sweep K ROWS CELL CONFIG...     CONFIG: "plain", "read", "readG[/S]" (G streams interleaved, S bytes of each at a time), "xor"/"xornt" (the
 *        encode's reads and writes, the outputs plain XORs, normal or non-temporal stores) or
 *        g=8,s=16k,p=0,nt=0,step=2k,hint=0,gfni=0 (any subset; defaults as shown, nt=1 non-temporal parity stores,
 *        hint 0 = prefetcht0, 1 = t1, 2 = t2, 3 = nta; gfni=1: the GFNI kernel, which takes g, s and p only).
 * Env: SWEEP_STAGGER (bytes; cells at staggered page offsets), SWEEP_SECONDS per config (default 0.4, best of 4 equal intervals), SWEEP_WORKING_SET bytes (default 128 MiB).
 * Output: "k rows cell config gbps others=N%" (N: how busy other processes kept the other cores meanwhile), gbps = 10^9 data bytes (k cells) per second; for the read probes, bytes read.
 */
#define WIDEEC_NO_JNI 1
#include "../src/wideec_isal.c"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every cell 64 bytes into its own page, as the JVM's direct buffers and isal_bench's. */
static unsigned char *cell_buffer(size_t cell) {
  unsigned char *p;
  if (posix_memalign((void **) &p, 4096, cell + 8192) != 0) {
    fprintf(stderr, "wide_sweep: out of memory\n");
    exit(1);
  }
  memset(p, 0, cell + 8192);
  return p + 64;
}

typedef uint64_t line_t __attribute__((vector_size(64), aligned(64)));

/* Reads g streams interleaved, one 64-byte line of each in turn (ISA-L's order of reads). */
__attribute__((target_clones("avx512f", "avx2", "default")))
static uint64_t read_streams(unsigned char **p, int g, size_t n) {
  line_t a = {0};
  for (size_t i = 0; i + 64 <= n; i += 64) {
    for (int c = 0; c < g; c++) {
      a ^= *(const line_t *) (p[c] + i);
    }
  }
  uint64_t x = 0;
  for (int i = 0; i < 8; i++) {
    x ^= a[i];
  }
  return x;
}

/* The encode's memory traffic without its arithmetic: every output line = the XOR of the k input lines. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void xor_pattern(unsigned char **p, int k, unsigned char **q, int rows, size_t n) {
  for (size_t i = 0; i + 64 <= n; i += 64) {
    line_t a = {0};
    for (int c = 0; c < k; c++) {
      a ^= *(const line_t *) (p[c] + i);
    }
    for (int r = 0; r < rows; r++) {
      *(line_t *) (q[r] + i) = a;
    }
  }
}

__attribute__((target("avx512f")))
static void xor_pattern_nt(unsigned char **p, int k, unsigned char **q, int rows, size_t n) {
  for (size_t i = 0; i + 64 <= n; i += 64) {
    __m512i a = _mm512_setzero_si512();
    for (int c = 0; c < k; c++) {
      a = _mm512_xor_si512(a, _mm512_load_si512((const void *) (p[c] + i)));
    }
    for (int r = 0; r < rows; r++) {
      _mm512_stream_si512((void *) (q[r] + i), a);
    }
  }
  _mm_sfence();
}

/* Jiffies the machine spent busy, all cores (to tell how much other processes ran during a measurement). */
static double busy_seconds(void) {
  FILE *f = fopen("/proc/stat", "r");
  unsigned long long v[8] = {0};
  if (f == NULL || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                          &v[6], &v[7]) != 8) {
    if (f) fclose(f);
    return 0;
  }
  fclose(f);
  return (double) (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / sysconf(_SC_CLK_TCK);
}

static double own_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_size(const char *v) {
  char *end;
  long x = strtol(v, &end, 10);
  if (*end == 'k' || *end == 'K') x <<= 10;
  if (*end == 'm' || *end == 'M') x <<= 20;
  return (int) x;
}

/* The kernel a configuration names: the GFNI one (group, slice, prefetch) or ISA-L's sliced multiply (every knob). */
static void sliced(int gfni, int len, int k, int rows, unsigned char *tables, unsigned char **in, unsigned char **out,
                   unsigned char *scratch, const struct wide_opts *o) {
  if (gfni) {
    gfni_multiply(len, k, rows, tables, in, out, o->group, o->slice, o->prefetch);
  } else {
    multiply_opts(len, k, rows, tables, in, out, scratch, o);
  }
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: wide_sweep K ROWS CELL CONFIG...\n");
    return 2;
  }
  int k = atoi(argv[1]), rows = atoi(argv[2]);
  size_t cell = (size_t) parse_size(argv[3]);
  double seconds = getenv("SWEEP_SECONDS") ? atof(getenv("SWEEP_SECONDS")) : 0.4;
  double ws = getenv("SWEEP_WORKING_SET") ? atof(getenv("SWEEP_WORKING_SET")) : 128.0 * (1 << 20);
  int sets = (int) ((ws + (double) (k + rows) * cell - 1) / ((double) (k + rows) * cell));
  if (sets < 2) sets = 2;
  srand(15);
  unsigned char *a = malloc((size_t) k * rows);
  for (int i = 0; i < k * rows; i++) a[i] = (unsigned char) (1 + rand() % 255);
  unsigned char *tables = aligned_alloc(64, (size_t) TABLE_BYTES_PER_COEFFICIENT * k * rows + 64);
  wideec_init_tables(k, rows, a, tables);
  unsigned char ***in = malloc(sizeof(void *) * sets), ***out = malloc(sizeof(void *) * sets);
  /* SWEEP_STAGGER: cell i sits 64 + (i * SWEEP_STAGGER) % 4032 bytes into its page instead of 64 (layout experiment). */
  int stagger = getenv("SWEEP_STAGGER") ? atoi(getenv("SWEEP_STAGGER")) : 0;
  int nth = 0;
  for (int s = 0; s < sets; s++) {
    in[s] = malloc(sizeof(void *) * k);
    out[s] = malloc(sizeof(void *) * rows);
    for (int i = 0; i < k; i++) {
      in[s][i] = cell_buffer(cell) + (stagger ? (nth++ * stagger) % 4032 : 0);
      for (size_t j = 0; j < cell; j++) in[s][i][j] = (unsigned char) rand();
    }
    for (int i = 0; i < rows; i++) out[s][i] = cell_buffer(cell) + (stagger ? (nth++ * stagger) % 4032 : 0);
  }
  unsigned char *ref[MAX_UNITS];
  for (int i = 0; i < rows; i++) ref[i] = cell_buffer(cell);
  ec_encode_data((int) cell, k, rows, tables, in[0], ref);
  unsigned char *scratch = NULL;
  if (posix_memalign((void **) &scratch, 64, (size_t) 2 * rows * (1 << 20)) != 0) return 1;

  for (int ci = 4; ci < argc; ci++) {
    const char *spec = argv[ci];
    int mode = 0; /* 0 kernel, 1 plain, 2 read probe */
    int g = 8, sl = 16 << 10, pf = 0, nt = 0, step = 2048, hint = 0, gfni = 0, rg = 1, rslice = (int) cell;
    if (strcmp(spec, "plain") == 0) {
      mode = 1;
    } else if (strcmp(spec, "xor") == 0 || strcmp(spec, "xornt") == 0) {
      mode = strcmp(spec, "xor") == 0 ? 3 : 4;
    } else if (strncmp(spec, "read", 4) == 0) {
      mode = 2;
      rg = spec[4] ? atoi(spec + 4) : 1;
      const char *slash = strchr(spec, '/');
      rslice = slash ? parse_size(slash + 1) : (int) cell;
    } else {
      char buf[256];
      snprintf(buf, sizeof buf, "%s", spec);
      for (char *part = strtok(buf, ","); part; part = strtok(NULL, ",")) {
        char *eq = strchr(part, '=');
        if (!eq) { fprintf(stderr, "bad config %s\n", spec); return 2; }
        *eq = 0;
        int v = parse_size(eq + 1);
        if (!strcmp(part, "g")) g = v;
        else if (!strcmp(part, "s")) sl = v;
        else if (!strcmp(part, "p")) pf = v;
        else if (!strcmp(part, "nt")) nt = v;
        else if (!strcmp(part, "step")) step = v;
        else if (!strcmp(part, "hint")) hint = v;
        else if (!strcmp(part, "gfni")) gfni = v;
        else { fprintf(stderr, "bad key %s\n", part); return 2; }
      }
    }
    struct wide_opts o = {g, sl, pf, nt, step, hint};
    if (gfni && !gfni_supported()) {
      fprintf(stderr, "wide_sweep: %s: this processor has no AVX-512 GFNI\n", spec);
      return 2;
    }
    if (mode == 0) {
      for (int r = 0; r < rows; r++) memset(out[0][r], 0xa5, cell);
      sliced(gfni, (int) cell, k, rows, tables, in[0], out[0], scratch, &o);
      for (int r = 0; r < rows; r++) {
        if (memcmp(out[0][r], ref[r], cell) != 0) {
          fprintf(stderr, "wide_sweep: %s gives other bytes (row %d)\n", spec, r);
          return 1;
        }
      }
    }
    double best = 0, busy0 = busy_seconds(), own0 = own_seconds(), wall0 = now();
    int s = 0;
    uint64_t sink = 0;
    unsigned char *all[2 * MAX_UNITS];
    for (int interval = 0; interval < 4; interval++) {
      double bytes = 0, t0 = now(), t;
      do {
        if (mode == 2) {
          /* rg streams at a time over the stripe's k inputs, rslice bytes of each at a time */
          for (size_t off = 0; off < cell; off += rslice) {
            for (int c0 = 0; c0 + rg <= k; c0 += rg) {
              for (int c = 0; c < rg; c++) all[c] = in[s][c0 + c] + off;
              sink ^= read_streams(all, rg, rslice);
              bytes += (double) rg * rslice;
            }
          }
        } else if (mode == 3 || mode == 4) {
          (mode == 3 ? xor_pattern : xor_pattern_nt)(in[s], k, out[s], rows, cell);
          bytes += (double) k * cell;
        } else if (mode == 1) {
          ec_encode_data((int) cell, k, rows, tables, in[s], out[s]);
          bytes += (double) k * cell;
        } else {
          sliced(gfni, (int) cell, k, rows, tables, in[s], out[s], scratch, &o);
          bytes += (double) k * cell;
        }
        s = s + 1 == sets ? 0 : s + 1;
        t = now();
      } while (t - t0 < seconds / 4);
      double gbps = bytes / (t - t0) / 1e9;
      best = gbps > best ? gbps : best;
    }
    /* others: the share of the other core(s) that other processes kept busy meanwhile */
    double others = (busy_seconds() - busy0 - (own_seconds() - own0)) / (now() - wall0) / (sysconf(_SC_NPROCESSORS_ONLN) - 1);
    printf("%d %d %zu %s %.2f others=%.0f%%\n", k, rows, cell, spec, best, 100 * (others < 0 ? 0 : others));
    fflush(stdout);
    if (sink == 42) fprintf(stderr, "!");
  }
  return 0;
}
