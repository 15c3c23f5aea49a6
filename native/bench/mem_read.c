/*
 * Single-core (and n-thread) memory-read bandwidth: a STREAM-like read probe, the physical limit the coder
 * benchmark compares every coder against (a streamed encode cannot read its sources faster than memory delivers
 * them). Each thread XOR-reduces its own buffer, several times larger than the last-level cache, with the widest
 * vector loads the CPU has (AVX-512, else AVX2), and the best of several passes is reported, as STREAM does.
 * Usage: mem_read THREADS BYTES_PER_THREAD [SECONDS]   Output: "threads gbps" (10^9 bytes read per second).
 */
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

typedef uint64_t line_t __attribute__((vector_size(64), aligned(64)));

/* XOR of every 64-byte line, four independent chains; cloned per instruction set (AVX-512: one load per line). */
__attribute__((target_clones("avx512f", "avx2", "default")))
static uint64_t read_all(const unsigned char *p, size_t n) {
  line_t a = {0}, b = {0}, c = {0}, d = {0};
  for (size_t i = 0; i + 256 <= n; i += 256) {
    a ^= *(const line_t *) (p + i);
    b ^= *(const line_t *) (p + i + 64);
    c ^= *(const line_t *) (p + i + 128);
    d ^= *(const line_t *) (p + i + 192);
  }
  a ^= b ^ c ^ d;
  uint64_t x = 0;
  for (int i = 0; i < 8; i++) {
    x ^= a[i];
  }
  return x;
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
  pthread_barrier_wait(j->start);
  double t0 = now();
  do {
    double s = now();
    j->sink ^= read_all(j->buf, j->bytes);
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
