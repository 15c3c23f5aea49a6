/*
 * JNI binding of hadoop-wide-ec over Intel ISA-L.
 *
 * Any generator or decoding matrix (n up to 255, no fixed k/m caps), direct ByteBuffers only, no copies.
 * Every argument is validated on the Java side (IsalNative) before it gets here; this file trusts them.
 *
 * Wide stripes: ISA-L's ec_encode_data streams all k sources at once; beyond a few dozen sources the
 * hardware prefetchers lose track and throughput drops (ECWide §2.2 measures 43-70%). For k above the
 * group size we therefore work slice by slice, and within a slice source group by source group, summing
 * each group's partial products into the outputs from a scratch buffer that stays in L2. Group, slice and
 * software prefetch are chosen per machine by the Java side (WideTuning) and passed on every call.
 */
#ifndef WIDEEC_NO_JNI
#include <jni.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>

#include <immintrin.h>

#define MAX_UNITS 255
/* Bytes computed between two batches of software prefetches (prefetch > 0). */
#ifndef STEP
#define STEP 2048
#endif

/* dst ^= src. Cloned per instruction set (the library is built for any x86-64): the wide path runs it over each
 * group's partial products, so at 8 sources per group it moves about as many bytes through L2 as ISA-L does. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void xor_into(unsigned char *restrict dst, const unsigned char *restrict src, int len) {
  for (int i = 0; i < len; i++) {
    dst[i] ^= src[i];
  }
}

/* One software prefetch of the line at p (hint 0: prefetcht0, 1: t1, 2: t2, 3: nta). Inline assembly, not
 * _mm_prefetch: GCC's pure-const analysis takes a function that only prefetches (prefetch_part, prefetch_ahead) for
 * a pure one and deletes every call to it, without a word; built with _mm_prefetch, the library issued no prefetch
 * at all, and sweeps of prefetch distances measured no-ops (benchmarks/HISTORY.md, "A correction first"). An asm
 * volatile is never deleted. */
static inline void prefetch_line(const void *p, int hint) {
  switch (hint) {
    case 1: __asm__ volatile("prefetcht1 %0" : : "m"(*(const char *) p)); break;
    case 2: __asm__ volatile("prefetcht2 %0" : : "m"(*(const char *) p)); break;
    case 3: __asm__ volatile("prefetchnta %0" : : "m"(*(const char *) p)); break;
    default: __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *) p)); break;
  }
}

/* Prefetches lines [from, to) of each of g sources at src[c] + off, one source after another, with the given hint
 * (0: prefetcht0, 1: t1, 2: t2, 3: nta). */
static void prefetch_part(unsigned char **in, int c0, int g, int off, int from, int to, int hint) {
  for (int c = 0; c < g; c++) {
    const char *p = (const char *) in[c0 + c] + off;
    for (int i = from; i < to; i += 64) {
      prefetch_line(p + i, hint);
    }
  }
}

/* dst = a ^ b (b may be NULL: dst = a), the bulk with non-temporal stores: the parity goes to memory without
 * being read first (a normal store reads each line it writes). The caller fences once per call. */
__attribute__((target("avx512f")))
static int store_nt512(unsigned char *dst, const unsigned char *a, const unsigned char *b, int i, int len) {
  for (; i + 64 <= len; i += 64) {
    __m512i x = _mm512_loadu_si512((const void *) (a + i));
    if (b != NULL) {
      x = _mm512_xor_si512(x, _mm512_loadu_si512((const void *) (b + i)));
    }
    _mm512_stream_si512((void *) (dst + i), x);
  }
  return i;
}

static int store_nt128(unsigned char *dst, const unsigned char *a, const unsigned char *b, int i, int len) {
  for (; i + 16 <= len; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *) (a + i));
    if (b != NULL) {
      x = _mm_xor_si128(x, _mm_loadu_si128((const __m128i *) (b + i)));
    }
    _mm_stream_si128((__m128i *) (dst + i), x);
  }
  return i;
}

static void store_nt(unsigned char *dst, const unsigned char *a, const unsigned char *b, int len) {
  int head = (int) ((64 - ((uintptr_t) dst & 63)) & 63);
  if (head > len) {
    head = len;
  }
  for (int i = 0; i < head; i++) {
    dst[i] = b == NULL ? a[i] : a[i] ^ b[i];
  }
  int i = __builtin_cpu_supports("avx512f") ? store_nt512(dst, a, b, head, len) : store_nt128(dst, a, b, head, len);
  for (; i < len; i++) {
    dst[i] = b == NULL ? a[i] : a[i] ^ b[i];
  }
}

/* How a multiply is cut into passes; see multiply_opts. */
/*
 * The tables the JNI calls take: ISA-L's own (ec_init_tables, 32 x k x rows bytes, whose layout is ISA-L's business:
 * from ISA-L 2.31 on it is chosen at run time, 8 bytes per coefficient on GFNI machines), then one GF2P8AFFINEQB
 * matrix per coefficient (8 x k x rows), then the coefficients themselves (k x rows). Nothing here reads ISA-L's
 * layout: the sliced path builds its groups' tables with ec_init_tables, the GFNI kernel uses its own matrices.
 */
#define TABLE_BYTES_PER_COEFFICIENT 41

static uint64_t affine_of(unsigned char a);

static uint64_t *affine_part(unsigned char *tables, int k, int rows) {
  return (uint64_t *) (tables + (size_t) 32 * k * rows);
}

static unsigned char *coefficient_part(unsigned char *tables, int k, int rows) {
  return tables + (size_t) 40 * k * rows;
}

/* Fills tables (TABLE_BYTES_PER_COEFFICIENT x k x rows bytes, 8-byte aligned) for the rows x k matrix a. */
static void wideec_init_tables(int k, int rows, const unsigned char *a, unsigned char *tables) {
  ec_init_tables(k, rows, (unsigned char *) a, tables);
  uint64_t *m = affine_part(tables, k, rows);
  for (int i = 0; i < k * rows; i++) {
    m[i] = affine_of(a[i]);
  }
  memcpy(coefficient_part(tables, k, rows), a, (size_t) k * rows);
}

struct wide_opts {
  int group;    /* sources per pass; >= k with nt = 0 and prefetch = 0: one ec_encode_data over everything */
  int slice;    /* bytes per pass */
  int prefetch; /* > 0: software prefetch this many bytes ahead (crossing into the next pass) */
  int nt;       /* 1: parity written with non-temporal stores from scratch (needs 2 x rows x slice of scratch) */
  int step;     /* bytes computed between two batches of software prefetches */
  int hint;     /* prefetch hint, see prefetch_part */
};

/*
 * out[r] = sum_c a[r][c] in[c]; tables from ec_init_tables(k, rows, a).
 * The multiply is cut into slices of o->slice bytes, and within a slice into passes of o->group sources, each
 * pass's partial products summed into the outputs from scratch that stays in L2 (rows x slice bytes; twice that
 * with nt). prefetch > 0: each pass is computed in o->step-byte steps, and each step first prefetches the lines
 * that the step `prefetch` bytes later reads (of this pass, then of the next pass), so memory works while the
 * core multiplies. nt: the first pass writes into scratch too, and the last one's sum goes to the outputs with
 * non-temporal stores. Every choice computes the same sums in GF(2^8), so the bytes are identical whatever the
 * tuning. On the AMD EPYCs measured (Zen 4, Zen 5) nt did not speed coding up, nor did prefetch on a Zen 5 once it
 * issued prefetch instructions (16 x 16 KiB, 2 KiB ahead: 14.8 GB/s against 16.8 without; measured once the
 * prefetches were inline assembly, see prefetch_line), so the JNI entry passes prefetch alone; the rest is there
 * for the sweep, to try them on other processors. The GFNI kernel below is where prefetch pays.
 */
static void multiply_opts(int len, int k, int rows, unsigned char *tables, unsigned char **in, unsigned char **out,
                          unsigned char *scratch, const struct wide_opts *o) {
  int group = o->group < 1 ? 1 : (o->group > k ? k : o->group);
  int slice = o->slice;
  int prefetch = o->prefetch;
  int step = o->step < 64 ? 64 : o->step;
  int nt = o->nt;
  if (scratch == NULL || slice < 64 || (group >= k && !nt && prefetch <= 0)) {
    ec_encode_data(len, k, rows, tables, in, out);
    return;
  }
  unsigned char *acc[MAX_UNITS];
  unsigned char *tmp[MAX_UNITS];
  unsigned char *src[MAX_UNITS];
  unsigned char *dst[MAX_UNITS];
  unsigned char *s2[MAX_UNITS];
  unsigned char *d2[MAX_UNITS];
  /* Tables of every group, built once per call by ec_init_tables from the group's coefficients (ISA-L's layout is
   * its own), group c0's at gt + 32 x rows x c0; on the heap (too big for a JNI thread's stack at k = 255). */
  unsigned char *gt = tables;
  if (group < k) {
    gt = malloc((size_t) 32 * k * rows + (size_t) group * rows);
    if (gt == NULL) {
      ec_encode_data(len, k, rows, tables, in, out);
      return;
    }
    const unsigned char *a = coefficient_part(tables, k, rows);
    unsigned char *sub = gt + (size_t) 32 * k * rows;
    for (int c0 = 0; c0 < k; c0 += group) {
      int g = k - c0 < group ? k - c0 : group;
      for (int r = 0; r < rows; r++) {
        memcpy(sub + (size_t) r * g, a + (size_t) r * k + c0, (size_t) g);
      }
      ec_init_tables(g, rows, sub, gt + (size_t) 32 * rows * c0);
    }
  }
  /* off advances by n, never past len: off + slice could overflow an int for len near 2^31 */
  for (int off = 0, n; off < len; off += n) {
    n = len - off < slice ? len - off : slice;
    for (int r = 0; r < rows; r++) {
      dst[r] = out[r] + off;
      tmp[r] = scratch + (size_t) r * slice;
      acc[r] = scratch + (size_t) (rows + r) * slice;
    }
    for (int c0 = 0; c0 < k; c0 += group) {
      int g = k - c0 < group ? k - c0 : group;
      int last = c0 + group >= k;
      unsigned char *t = gt + (size_t) 32 * rows * c0;
      unsigned char **into = c0 > 0 ? tmp : nt ? acc : dst;
      for (int c = 0; c < g; c++) {
        src[c] = in[c0 + c] + off;
      }
      if (prefetch <= 0) {
        ec_encode_data(n, g, rows, t, src, into);
      } else {
        /* What comes next: the next group of this slice, else the first group of the next slice. */
        int nc0 = !last ? c0 + group : 0;
        int noff = !last ? off : off + n;
        int ng = k - nc0 < group ? k - nc0 : group;
        int nn = noff >= len ? 0 : (len - noff < slice ? len - noff : slice);
        for (int b = 0; b < n; b += step) {
          int m = n - b < step ? n - b : step;
          for (int c = 0; c < g; c++) {
            s2[c] = src[c] + b;
          }
          for (int r = 0; r < rows; r++) {
            d2[r] = into[r] + b;
          }
          int ahead = b + prefetch;
          if (ahead < n) {
            prefetch_part(in, c0, g, off, ahead, ahead + step < n ? ahead + step : n, o->hint);
          } else if (ahead - n < nn) {
            int a = ahead - n;
            prefetch_part(in, nc0, ng, noff, a, a + step < nn ? a + step : nn, o->hint);
          }
          ec_encode_data(m, g, rows, t, s2, d2);
        }
      }
      if (nt && last) {
        for (int r = 0; r < rows; r++) {
          store_nt(dst[r], acc[r], c0 > 0 ? tmp[r] : NULL, n);
        }
      } else if (c0 > 0) {
        for (int r = 0; r < rows; r++) {
          xor_into(nt ? acc[r] : dst[r], tmp[r], n);
        }
      }
    }
  }
  if (nt) {
    _mm_sfence();
  }
  if (gt != tables) {
    free(gt);
  }
}

/*
 * GFNI: multiplying a byte by a constant a of GF(2^8) is linear over GF(2), an 8 x 8 bit matrix that
 * GF2P8AFFINEQB applies to 64 bytes in one instruction, whatever the field polynomial (ISA-L's 0x11d here; the
 * instruction's own GF2P8MULB is fixed to AES's 0x11b). ISA-L 2.30's AVX-512 kernels spend two table lookups, two
 * shifts or masks and an XOR per 64 bytes and coefficient instead; in cache this multiplies twice as fast, and
 * streamed from memory RS(10,4) encodes about 1.5x as fast on a Zen 5 (benchmarks/HISTORY.md, "A GFNI kernel for
 * unsliced multiplies").
 */
static int gfni_probe(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("gfni") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

/* Whether this processor runs the GFNI kernel (AVX-512 with GFNI); asked once (threads that race all store the
 * same answer). */
static int gfni_supported(void) {
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    k = gfni_probe();
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}

/* The GF2P8AFFINEQB matrix of x -> a x mod 0x11d: byte 7 - i holds the row of output bit i, whose bit j is bit i
 * of a 2^j. */
static uint64_t affine_of(unsigned char a) {
  unsigned char p[8];
  unsigned int v = a;
  for (int j = 0; j < 8; j++) {
    p[j] = (unsigned char) v;
    v = (v << 1) ^ ((v & 0x80) ? 0x11d : 0);
  }
  uint64_t m = 0;
  for (int i = 0; i < 8; i++) {
    unsigned int row = 0;
    for (int j = 0; j < 8; j++) {
      row |= ((p[j] >> i) & 1u) << j;
    }
    m |= (uint64_t) row << (8 * (7 - i));
  }
  return m;
}

/* 64 bytes at i of out[r0 .. r0 + nr): the sum over sources [c0, c0 + g), added to what out holds unless first;
 * mask: all ones but for the last partial 64 bytes (masked loads and stores touch nothing beyond them). */
__attribute__((target("avx512f,avx512bw,gfni"), always_inline))
static inline void gfni_block(const uint64_t *mat, int k, int r0, int nr, int c0, int g, unsigned char **in,
                              unsigned char **out, size_t i, int first, __mmask64 m) {
  int whole = m == ~(__mmask64) 0; /* constant where inlined: plain loads and stores for whole blocks */
  __m512i acc[4];
  for (int r = 0; r < nr; r++) {
    acc[r] = first ? _mm512_setzero_si512()
        : whole ? _mm512_loadu_si512(out[r0 + r] + i) : _mm512_maskz_loadu_epi8(m, out[r0 + r] + i);
  }
  for (int c = c0; c < c0 + g; c++) {
    __m512i x = whole ? _mm512_loadu_si512(in[c] + i) : _mm512_maskz_loadu_epi8(m, in[c] + i);
    for (int r = 0; r < nr; r++) {
      acc[r] = _mm512_xor_si512(acc[r],
          _mm512_gf2p8affine_epi64_epi8(x, _mm512_set1_epi64((long long) mat[(size_t) (r0 + r) * k + c]), 0));
    }
  }
  for (int r = 0; r < nr; r++) {
    if (whole) {
      _mm512_storeu_si512(out[r0 + r] + i, acc[r]);
    } else {
      _mm512_mask_storeu_epi8(out[r0 + r] + i, m, acc[r]);
    }
  }
}

/*
 * What a pass reads, for software prefetch: its g sources from off on for n bytes, then the next pass's ng sources
 * from noff on for nn bytes (ng = 0 after the last pass). The line `ahead` bytes into the pass is prefetched in each
 * of the pass's sources; past the pass's end, in each of the next pass's.
 */
struct pass_reads {
  unsigned char **in;
  int c0, g, off, n;
  int nc0, ng, noff, nn;
};

static inline void prefetch_ahead(const struct pass_reads *p, int ahead) {
  if (ahead < p->n) {
    for (int c = 0; c < p->g; c++) {
      prefetch_line(p->in[p->c0 + c] + p->off + ahead, 0);
    }
  } else if (ahead - p->n < p->nn) {
    for (int c = 0; c < p->ng; c++) {
      prefetch_line(p->in[p->nc0 + c] + p->noff + (ahead - p->n), 0);
    }
  }
}

/* out[r0 .. r0 + nr) over the pass's n bytes (nr <= 4): whole 64-byte blocks unmasked, each after prefetching the
 * line `prefetch` bytes on in the read order (0: none), then the tail masked. Inlined into gfni_pass with nr a
 * constant, so the accumulators stay in registers. */
__attribute__((target("avx512f,avx512bw,gfni"), always_inline))
static inline void gfni_rows(const uint64_t *mat, int k, int r0, int nr, const struct pass_reads *p,
                             unsigned char **out, int first, int prefetch) {
  int whole = p->n & ~63;
  for (int i = 0; i < whole; i += 64) {
    if (prefetch > 0) {
      prefetch_ahead(p, i + prefetch);
    }
    gfni_block(mat, k, r0, nr, p->c0, p->g, p->in, out, (size_t) p->off + i, first, ~(__mmask64) 0);
  }
  if (whole < p->n) {
    gfni_block(mat, k, r0, nr, p->c0, p->g, p->in, out, (size_t) p->off + whole, first,
               (((__mmask64) 1) << (p->n - whole)) - 1);
  }
}

/* Sources per pass up to which gfni_rows_held can run a pass. */
#define GFNI_HELD 8

/*
 * gfni_rows for a pass of g <= GFNI_HELD sources, with g and nr constants where inlined: the pass's g x nr matrices
 * and its source and output pointers are loaded into registers once, where gfni_block reloads them every 64 bytes (a
 * byte store may alias anything). In cache it computes about 1.5x as fast (4 sources x 4 rows, Zen 5: 55 against 36
 * GB/s), yet streamed from memory with four rows it ran 9% slower (30.6 against 33.7 GB/s for RS(128,4)); so it
 * runs multiplies of more than four rows, which read each pass again from L2 for every four rows and are bound by
 * the arithmetic: streamed, 8 rows x 128 sources 19.7-20.0 GB/s against 17.8-18.5, UniLRC's 30 x 180 6.2-6.3
 * against 5.3-5.7, RapidRAID's 16 x 11 7.9-8.0 against 7.3-7.6 (native/bench/wide_sweep, benchmarks/HISTORY.md).
 */
__attribute__((target("avx512f,avx512bw,gfni"), always_inline))
static inline void gfni_rows_held(const uint64_t *mat, int k, int r0, int nr, int g, const struct pass_reads *p,
                                  unsigned char **out, int first, int prefetch) {
  __m512i m[4][GFNI_HELD];
  const unsigned char *src[GFNI_HELD];
  unsigned char *dst[4];
  for (int c = 0; c < g; c++) {
    src[c] = p->in[p->c0 + c] + p->off;
    for (int r = 0; r < nr; r++) {
      m[r][c] = _mm512_set1_epi64((long long) mat[(size_t) (r0 + r) * k + p->c0 + c]);
    }
  }
  for (int r = 0; r < nr; r++) {
    dst[r] = out[r0 + r] + p->off;
  }
  int n = p->n;
  int whole = n & ~63;
  for (int i = 0; i < whole; i += 64) {
    if (prefetch > 0) {
      int ahead = i + prefetch;
      if (ahead < n) {
        for (int c = 0; c < g; c++) {
          prefetch_line(src[c] + ahead, 0);
        }
      } else {
        prefetch_ahead(p, ahead);
      }
    }
    __m512i acc[4];
    for (int r = 0; r < nr; r++) {
      acc[r] = first ? _mm512_setzero_si512() : _mm512_loadu_si512(dst[r] + i);
    }
    for (int c = 0; c < g; c++) {
      __m512i x = _mm512_loadu_si512(src[c] + i);
      for (int r = 0; r < nr; r++) {
        acc[r] = _mm512_xor_si512(acc[r], _mm512_gf2p8affine_epi64_epi8(x, m[r][c], 0));
      }
    }
    for (int r = 0; r < nr; r++) {
      _mm512_storeu_si512(dst[r] + i, acc[r]);
    }
  }
  if (whole < n) {
    gfni_block(mat, k, r0, nr, p->c0, g, p->in, out, (size_t) p->off + whole, first,
               (((__mmask64) 1) << (n - whole)) - 1);
  }
}

/* A pass of g <= GFNI_HELD sources: one instance per g for a given nr. */
#define GFNI_HELD_CASES(NR) \
  switch (p->g) { \
    case 1: gfni_rows_held(mat, k, r0, NR, 1, p, out, first, prefetch); break; \
    case 2: gfni_rows_held(mat, k, r0, NR, 2, p, out, first, prefetch); break; \
    case 3: gfni_rows_held(mat, k, r0, NR, 3, p, out, first, prefetch); break; \
    case 4: gfni_rows_held(mat, k, r0, NR, 4, p, out, first, prefetch); break; \
    case 5: gfni_rows_held(mat, k, r0, NR, 5, p, out, first, prefetch); break; \
    case 6: gfni_rows_held(mat, k, r0, NR, 6, p, out, first, prefetch); break; \
    case 7: gfni_rows_held(mat, k, r0, NR, 7, p, out, first, prefetch); break; \
    default: gfni_rows_held(mat, k, r0, NR, 8, p, out, first, prefetch); break; \
  }

/* held: the multiply has more than four rows (gfni_rows_held). */
__attribute__((target("avx512f,avx512bw,gfni")))
static void gfni_pass(const uint64_t *mat, int k, int r0, int nr, const struct pass_reads *p, unsigned char **out,
                      int first, int prefetch, int held) {
  if (held && p->g <= GFNI_HELD) {
    switch (nr) {
      case 4: GFNI_HELD_CASES(4); break;
      case 3: GFNI_HELD_CASES(3); break;
      case 2: GFNI_HELD_CASES(2); break;
      default: GFNI_HELD_CASES(1); break;
    }
    return;
  }
  switch (nr) {
    case 4: gfni_rows(mat, k, r0, 4, p, out, first, prefetch); break;
    case 3: gfni_rows(mat, k, r0, 3, p, out, first, prefetch); break;
    case 2: gfni_rows(mat, k, r0, 2, p, out, first, prefetch); break;
    default: gfni_rows(mat, k, r0, 1, p, out, first, prefetch); break;
  }
}

/*
 * out[r] = sum_c a[r][c] in[c] with GFNI, with the matrices wideec_init_tables made: slices of `slice` bytes, and
 * within a slice passes of `group` sources, each pass adding into the outputs (rows x slice bytes, in L2 for a few
 * rows), four rows at a time. prefetch > 0: a pass prefetches `prefetch` bytes ahead of what it reads, and near its end
 * into the next pass's sources, so that a pass's first lines are on their way before it starts.
 *
 * Why: one core reads many streams at once far slower than one (16 interleaved: about 26 GB/s against 35-49 for
 * one, on the Zen 5 measured), and the hardware prefetchers start over at every pass. Few sources per pass keep the
 * streams few, and the prefetch across passes makes the reads one continuous stream: RS(128,4) streamed from memory
 * encodes at about 33 GB/s with 4 sources x 64 KiB and 3 KiB ahead, against 17 for the best ISA-L slicing
 * (native/bench/wide_sweep; benchmarks/HISTORY.md, "Wide coding at the memory limit"). Multiplies of more than four
 * rows run their passes with gfni_rows_held. Every group, slice and prefetch computes the same sums in GF(2^8).
 */
static void gfni_multiply(int len, int k, int rows, unsigned char *tables, unsigned char **in,
                          unsigned char **out, int group, int slice, int prefetch) {
  const uint64_t *mat = affine_part(tables, k, rows);
  if (group < 1 || group > k) {
    group = k;
  }
  if (slice < 64 || slice > len) {
    slice = len;
  }
  /* off advances by n, never past len: off + slice could overflow an int for len near 2^31 */
  for (int off = 0, n; off < len; off += n) {
    n = len - off < slice ? len - off : slice;
    for (int c0 = 0; c0 < k; c0 += group) {
      struct pass_reads p = {in, c0, k - c0 < group ? k - c0 : group, off, n, 0, 0, 0, 0};
      /* the next pass: the next group of this slice, else the first group of the next slice */
      p.nc0 = c0 + group < k ? c0 + group : 0;
      p.noff = c0 + group < k ? off : off + n;
      if (p.noff < len) {
        p.ng = k - p.nc0 < group ? k - p.nc0 : group;
        p.nn = len - p.noff < slice ? len - p.noff : slice;
      }
      for (int r0 = 0; r0 < rows; r0 += 4) {
        /* rows past the first four read the pass's sources again, from cache: prefetched once */
        gfni_pass(mat, k, r0, rows - r0 < 4 ? rows - r0 : 4, &p, out, c0 == 0, r0 == 0 ? prefetch : 0, rows > 4);
      }
    }
  }
}

/* The JNI entry's shape: group, slice and prefetch, no non-temporal stores, ISA-L's prefetch in 2 KiB steps.
 * kernel 1, where the processor has GFNI: the GFNI kernel with this group, slice and prefetch. Otherwise ISA-L (the
 * same bytes): plain ec_encode_data for at most `group` sources, the sliced multiply for more. */
static void multiply(int len, int k, int rows, unsigned char *tables, unsigned char **in, unsigned char **out,
                     unsigned char *scratch, int group, int slice, int prefetch, int kernel) {
  struct wide_opts o = {group, slice, prefetch, 0, STEP, 0};
  if (kernel == 1 && gfni_supported()) {
    gfni_multiply(len, k, rows, tables, in, out, group, slice, prefetch);
    return;
  }
  if (group >= k) {
    ec_encode_data(len, k, rows, tables, in, out);
    return;
  }
  multiply_opts(len, k, rows, tables, in, out, scratch, &o);
}

#ifndef WIDEEC_NO_JNI
static int gather(JNIEnv *env, jobjectArray buffers, jintArray positions, int count, unsigned char **ptrs) {
  jint pos[MAX_UNITS];
  (*env)->GetIntArrayRegion(env, positions, 0, count, pos);
  for (int i = 0; i < count; i++) {
    jobject b = (*env)->GetObjectArrayElement(env, buffers, i);
    unsigned char *addr = (unsigned char *) (*env)->GetDirectBufferAddress(env, b);
    (*env)->DeleteLocalRef(env, b);
    if (addr == NULL) {
      return -1;
    }
    ptrs[i] = addr + pos[i];
  }
  return 0;
}

static void throw_state(JNIEnv *env, const char *msg) {
  jclass c = (*env)->FindClass(env, "java/lang/IllegalStateException");
  if (c != NULL) {
    (*env)->ThrowNew(env, c, msg);
  }
}

/* The calls' shape, checked by IsalNative when it loads: a library built for other signatures (an older jar's, left
 * on java.library.path) must be refused there, not fail, or misread its arguments, at a DataNode's first encode.
 * 2: multiply takes group, slice and prefetch. 3: and a kernel (0 ISA-L, 1 GFNI). 4: tables of
 * TABLE_BYTES_PER_COEFFICIENT bytes per coefficient (ISA-L's, GFNI matrices, the coefficients). */
JNIEXPORT jint JNICALL Java_org_wideec_coder_IsalNative_abiVersion(JNIEnv *env, jclass cls) {
  return 4;
}

JNIEXPORT void JNICALL Java_org_wideec_coder_IsalNative_initTables(JNIEnv *env, jclass cls, jint k, jint rows,
                                                                    jbyteArray matrix, jobject tables) {
  unsigned char a[MAX_UNITS * MAX_UNITS];
  (*env)->GetByteArrayRegion(env, matrix, 0, k * rows, (jbyte *) a);
  unsigned char *t = (unsigned char *) (*env)->GetDirectBufferAddress(env, tables);
  if (t == NULL) {
    throw_state(env, "table buffer is not direct");
    return;
  }
  wideec_init_tables(k, rows, a, t);
}

JNIEXPORT void JNICALL Java_org_wideec_coder_IsalNative_multiply(JNIEnv *env, jclass cls, jobject tables, jint k,
                                                                  jint rows, jobjectArray inputs, jintArray inPos,
                                                                  jobjectArray outputs, jintArray outPos, jint len,
                                                                  jobject scratch, jint group, jint slice,
                                                                  jint prefetch, jint kernel) {
  unsigned char *in[MAX_UNITS];
  unsigned char *out[MAX_UNITS];
  unsigned char *t = (unsigned char *) (*env)->GetDirectBufferAddress(env, tables);
  unsigned char *s = scratch == NULL ? NULL : (unsigned char *) (*env)->GetDirectBufferAddress(env, scratch);
  if (t == NULL || gather(env, inputs, inPos, k, in) != 0 || gather(env, outputs, outPos, rows, out) != 0) {
    throw_state(env, "a buffer handed to the native coder is not direct");
    return;
  }
  multiply(len, k, rows, t, in, out, s, group, slice, prefetch, kernel);
}

/* Whether multiply's kernel 1 (GFNI) runs on this processor. */
JNIEXPORT jboolean JNICALL Java_org_wideec_coder_IsalNative_gfni(JNIEnv *env, jclass cls) {
  return gfni_supported() ? JNI_TRUE : JNI_FALSE;
}

/* XOR of count sources into dest, with ISA-L's xor_gen when everything is 32-byte aligned. */
JNIEXPORT void JNICALL Java_org_wideec_coder_IsalNative_xor(JNIEnv *env, jclass cls, jobjectArray inputs,
                                                             jintArray inPos, jint count, jobject output, jint outPos,
                                                             jint len) {
  unsigned char *ptrs[MAX_UNITS + 1];
  if (gather(env, inputs, inPos, count, ptrs) != 0) {
    throw_state(env, "a buffer handed to the native coder is not direct");
    return;
  }
  unsigned char *dst = (unsigned char *) (*env)->GetDirectBufferAddress(env, output);
  if (dst == NULL) {
    throw_state(env, "output buffer is not direct");
    return;
  }
  dst += outPos;
  int aligned = ((uintptr_t) dst & 31) == 0 && (len & 31) == 0 && count >= 2;
  for (int i = 0; i < count && aligned; i++) {
    aligned = ((uintptr_t) ptrs[i] & 31) == 0;
  }
  if (aligned) {
    ptrs[count] = dst;
    if (xor_gen(count + 1, len, (void **) ptrs) == 0) {
      return;
    }
  }
  memcpy(dst, ptrs[0], (size_t) len);
  for (int i = 1; i < count; i++) {
    xor_into(dst, ptrs[i], len);
  }
}

/* Delta update: out[r] ^= a[r][vec] * in for one changed source (ec_encode_data_update). */
JNIEXPORT void JNICALL Java_org_wideec_coder_IsalNative_update(JNIEnv *env, jclass cls, jobject tables, jint k,
                                                                jint rows, jint vec, jobject input, jint inPos,
                                                                jobjectArray outputs, jintArray outPos, jint len) {
  unsigned char *out[MAX_UNITS];
  unsigned char *t = (unsigned char *) (*env)->GetDirectBufferAddress(env, tables);
  unsigned char *src = (unsigned char *) (*env)->GetDirectBufferAddress(env, input);
  if (t == NULL || src == NULL || gather(env, outputs, outPos, rows, out) != 0) {
    throw_state(env, "a buffer handed to the native coder is not direct");
    return;
  }
  ec_encode_data_update(len, k, rows, vec, t, src + inPos, out);
}
#endif
