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
#include <jni.h>
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

/* Prefetches lines [from, to) of each of g sources at src[c] + off, one source after another. */
static void prefetch_part(unsigned char **in, int c0, int g, int off, int from, int to) {
  for (int c = 0; c < g; c++) {
    const char *p = (const char *) in[c0 + c] + off;
    for (int i = from; i < to; i += 64) {
      _mm_prefetch(p + i, _MM_HINT_T0);
    }
  }
}

/*
 * out[r] = sum_c a[r][c] in[c]; tables from ec_init_tables(k, rows, a).
 * group: sources per pass (group >= k: one ec_encode_data over everything); slice: bytes per pass;
 * prefetch > 0: the slice is computed in STEP-byte steps, and each step first prefetches the lines that the
 * step `prefetch` bytes later reads (of this group, then of the next group or the next slice's first), so
 * memory could work while the core multiplies. On the AMD EPYC it only slowed coding down; kept as a
 * tuning candidate for other processors (WideTuning).
 * Every choice computes the same sums in GF(2^8), so the bytes are identical whatever the tuning.
 */
static void multiply(int len, int k, int rows, unsigned char *tables, unsigned char **in, unsigned char **out,
                     unsigned char *scratch, int group, int slice, int prefetch) {
  if (group >= k || scratch == NULL || group < 1 || slice < 64) {
    ec_encode_data(len, k, rows, tables, in, out);
    return;
  }
  unsigned char *tmp[MAX_UNITS];
  unsigned char *src[MAX_UNITS];
  unsigned char *dst[MAX_UNITS];
  unsigned char *s2[MAX_UNITS];
  unsigned char *d2[MAX_UNITS];
  /* Tables of every group, regrouped once per call: rows x g x 32 bytes per group, on the heap (too big for
   * a JNI thread's stack at k = 255). The 32-byte table of (row r, source c) sits at tables[32 * (r * k + c)]. */
  unsigned char *gt = malloc((size_t) 32 * k * rows);
  if (gt == NULL) {
    ec_encode_data(len, k, rows, tables, in, out);
    return;
  }
  for (int c0 = 0; c0 < k; c0 += group) {
    int g = k - c0 < group ? k - c0 : group;
    for (int r = 0; r < rows; r++) {
      memcpy(gt + (size_t) 32 * (rows * c0 + r * g), tables + (size_t) 32 * (r * k + c0), (size_t) 32 * g);
    }
  }
  for (int off = 0; off < len; off += slice) {
    int n = len - off < slice ? len - off : slice;
    for (int r = 0; r < rows; r++) {
      dst[r] = out[r] + off;
      tmp[r] = scratch + (size_t) r * slice;
    }
    for (int c0 = 0; c0 < k; c0 += group) {
      int g = k - c0 < group ? k - c0 : group;
      unsigned char *t = gt + (size_t) 32 * rows * c0;
      unsigned char **into = c0 == 0 ? dst : tmp;
      for (int c = 0; c < g; c++) {
        src[c] = in[c0 + c] + off;
      }
      if (prefetch <= 0) {
        ec_encode_data(n, g, rows, t, src, into);
      } else {
        /* What comes next: the next group of this slice, else the first group of the next slice. */
        int nc0 = c0 + group < k ? c0 + group : 0;
        int noff = c0 + group < k ? off : off + slice;
        int ng = k - nc0 < group ? k - nc0 : group;
        int nn = noff >= len ? 0 : (len - noff < slice ? len - noff : slice);
        for (int o = 0; o < n; o += STEP) {
          int m = n - o < STEP ? n - o : STEP;
          for (int c = 0; c < g; c++) {
            s2[c] = src[c] + o;
          }
          for (int r = 0; r < rows; r++) {
            d2[r] = into[r] + o;
          }
          int ahead = o + prefetch;
          if (ahead < n) {
            prefetch_part(in, c0, g, off, ahead, ahead + STEP < n ? ahead + STEP : n);
          } else if (ahead - n < nn) {
            int a = ahead - n;
            prefetch_part(in, nc0, ng, noff, a, a + STEP < nn ? a + STEP : nn);
          }
          ec_encode_data(m, g, rows, t, s2, d2);
        }
      }
      if (c0 > 0) {
        for (int r = 0; r < rows; r++) {
          xor_into(dst[r], tmp[r], n);
        }
      }
    }
  }
  free(gt);
}

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
 * 2: multiply takes group, slice and prefetch. */
JNIEXPORT jint JNICALL Java_org_wideec_coder_IsalNative_abiVersion(JNIEnv *env, jclass cls) {
  return 2;
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
  ec_init_tables(k, rows, a, t);
}

JNIEXPORT void JNICALL Java_org_wideec_coder_IsalNative_multiply(JNIEnv *env, jclass cls, jobject tables, jint k,
                                                                  jint rows, jobjectArray inputs, jintArray inPos,
                                                                  jobjectArray outputs, jintArray outPos, jint len,
                                                                  jobject scratch, jint group, jint slice,
                                                                  jint prefetch) {
  unsigned char *in[MAX_UNITS];
  unsigned char *out[MAX_UNITS];
  unsigned char *t = (unsigned char *) (*env)->GetDirectBufferAddress(env, tables);
  unsigned char *s = scratch == NULL ? NULL : (unsigned char *) (*env)->GetDirectBufferAddress(env, scratch);
  if (t == NULL || gather(env, inputs, inPos, k, in) != 0 || gather(env, outputs, outPos, rows, out) != 0) {
    throw_state(env, "a buffer handed to the native coder is not direct");
    return;
  }
  multiply(len, k, rows, t, in, out, s, group, slice, prefetch);
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


