/*
 * Single-core (and n-thread) memory-read bandwidth: a STREAM-like read probe, the physical limit the coder
 * benchmark compares every coder against (issue 15). Each thread XOR-reduces its own buffer, several
 * times larger than the last-level cache, with the widest vector loads the CPU has (AVX-512, else AVX2),
 * and the best of several passes is reported, as STREAM does.
 * Usage: mem_read THREADS BYTES_PER_THREAD [SECONDS]   Output: "threads gbps" (10^9 bytes read per second).
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((target("avx512f"))) static uint64_t read512(const unsigned char *p, size_t n) {
  __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
  for (size_t i = 0; i + 256 <= n; i += 256) {
    a = _mm512_xor_si512(a, _mm512_load_si512((const void *) (p + i)));
    b = _mm512_xor_si512(b, _mm512_load_si512((const void *) (p + i + 64)));
    c = _mm512_xor_si512(c, _mm512_load_si512((const void *) (p + i + 128)));
    d = _mm512_xor_si512(d, _mm512_load_si512((const void *) (p + i + 192)));
  }
  a = _mm512_xor_si512(_mm512_xor_si512(a, b), _mm512_xor_si512(c, d));
  return (uint64_t) _mm512_reduce_add_epi64(a);
}

__attribute__((target("avx2"))) static uint64_t read256(const unsigned char *p, size_t n) {
  __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
  for (size_t i = 0; i + 128 <= n; i += 128) {
    a = _mm256_xor_si256(a, _mm256_load_si256((const void *) (p + i)));
    b = _mm256_xor_si256(b, _mm256_load_si256((const void *) (p + i + 32)));
    c = _mm256_xor_si256(c, _mm256_load_si256((const void *) (p + i + 64)));
    d = _mm256_xor_si256(d, _mm256_load_si256((const void *) (p + i + 96)));
  }
  a = _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d));
  return (uint64_t) _mm256_extract_epi64(a, 0) ^ (uint64_t) _mm256_extract_epi64(a, 1);
}

static uint64_t read64(const unsigned char *p, size_t n) {
  uint64_t a = 0;
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v;
    memcpy(&v, p + i, 8);
    a ^= v;
  }
  return a;
}

struct job {
  unsigned char *buf;
  size_t bytes;
  double seconds;
  double best;
  uint64_t sink;
  pthread_barrier_t *start;
};

static void *run(void *arg) {
  struct job *j = arg;
  int wide = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
  pthread_barrier_wait(j->start);
  double t0 = now();
  do {
    double s = now();
    j->sink ^= wide == 2 ? read512(j->buf, j->bytes) : wide == 1 ? read256(j->buf, j->bytes) : read64(j->buf, j->bytes);
    double gbps = j->bytes / (now() - s) / 1e9;
    if (gbps > j->best) {
      j->best = gbps;
    }
  } while (now() - t0 < j->seconds);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: mem_read THREADS BYTES_PER_THREAD [SECONDS]\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  size_t bytes = (size_t) atoll(argv[2]) & ~(size_t) 255;
  double seconds = argc > 3 ? atof(argv[3]) : 1.0;
  if (threads < 1 || threads > 256 || bytes < 4096) {
    fprintf(stderr, "mem_read: bad arguments\n");
    return 2;
  }
  struct job *jobs = calloc(threads, sizeof(struct job));
  pthread_t *tid = calloc(threads, sizeof(pthread_t));
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, threads);
  for (int t = 0; t < threads; t++) {
    if (posix_memalign((void **) &jobs[t].buf, 64, bytes) != 0) {
      fprintf(stderr, "mem_read: cannot allocate %zu bytes\n", bytes);
      return 1;
    }
    memset(jobs[t].buf, t + 1, bytes); /* touch every page before timing */
    jobs[t].bytes = bytes;
    jobs[t].seconds = seconds;
    jobs[t].start = &start;
  }
  for (int t = 0; t < threads; t++) {
    pthread_create(&tid[t], NULL, run, &jobs[t]);
  }
  double total = 0;
  uint64_t sink = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(tid[t], NULL);
    total += jobs[t].best;
    sink ^= jobs[t].sink;
  }
  printf("%d %.3f\n", threads, total);
  fprintf(stderr, "mem_read: checksum %llx\n", (unsigned long long) sink);
  return 0;
}
