/* The disk's own QD1 floor for a consumer that waits versus one that polls, to read nvmf4j's file-backend latency
 * against: 4 KiB O_DIRECT random reads at queue depth 1 through io_uring, reaped four ways.
 *   disklat FILE SECONDS MODE [SPIN_US]
 *   MODE wait   io_uring_enter(GETEVENTS, min 1): the thread sleeps until the completion wakes it (fio's way)
 *        poll   busy-polls the CQ from user space, entering the kernel only to run its deferred completion work
 *               when the ring says so (IORING_SQ_TASKRUN), as nvmf4j's poll group does (COOP_TASKRUN)
 *        spin   busy-polls the CQ without COOP_TASKRUN (the completion interrupts the thread)
 *        hybrid polls for SPIN_US (default 20), then waits in the kernel for the rest
 *   Prints IOPS, p50, p99 (us), and the thread's voluntary/involuntary context switches.
 * Build: gcc -O2 -o disklat disklat.c -luring  (Debian: liburing-dev) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static unsigned long long rnd = 88172645463325252ULL;
static unsigned long long xorshift(void) { rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17; return rnd; }

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: disklat FILE SECONDS wait|poll|spin|hybrid [SPIN_US]\n"); return 2; }
  const char *mode = argv[3];
  double seconds = atof(argv[2]), spin_us = argc > 4 ? atof(argv[4]) : 20;
  int fd = open(argv[1], O_RDONLY | O_DIRECT);
  if (fd < 0) { perror(argv[1]); return 1; }
  struct stat st; fstat(fd, &st);
  long long blocks = st.st_size / 4096;
  if (blocks < 1) { fprintf(stderr, "%s: smaller than 4 KiB\n", argv[1]); return 1; }
  struct io_uring ring;
  struct io_uring_params p; memset(&p, 0, sizeof p);
  int coop = strcmp(mode, "spin") != 0 && strcmp(mode, "wait") != 0;
  if (coop) p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  int rc = io_uring_queue_init_params(8, &ring, &p);
  if (rc < 0) { fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-rc)); return 1; }
  void *buf; if (posix_memalign(&buf, 4096, 4096)) return 1;
  size_t cap = 1 << 22, n = 0;
  double *lat = malloc(cap * sizeof *lat);
  struct rusage r0, r1; getrusage(RUSAGE_THREAD, &r0);
  double t0 = now(), end = t0 + seconds;
  while (n < cap) {
    double s = now();
    if (s > end) break;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    io_uring_prep_read(sqe, fd, buf, 4096, (long long)(xorshift() % (unsigned long long)blocks) * 4096);
    io_uring_submit(&ring);
    struct io_uring_cqe *cqe = NULL;
    if (strcmp(mode, "wait") == 0) {
      io_uring_wait_cqe(&ring, &cqe);
    } else {
      double spin_until = strcmp(mode, "hybrid") == 0 ? now() + spin_us / 1e6 : 1e300;
      while (io_uring_peek_cqe(&ring, &cqe) != 0 || cqe == NULL) {
        if (coop && (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_TASKRUN)) io_uring_get_events(&ring);
        if (now() > spin_until) { io_uring_wait_cqe(&ring, &cqe); break; }
      }
    }
    if (cqe->res != 4096) { fprintf(stderr, "read: %s\n", cqe->res < 0 ? strerror(-cqe->res) : "short"); return 1; }
    io_uring_cqe_seen(&ring, cqe);
    lat[n++] = (now() - s) * 1e6;
  }
  double t = now() - t0;
  getrusage(RUSAGE_THREAD, &r1);
  qsort(lat, n, sizeof *lat, cmp);
  printf("%s: %.0f IOPS, p50 %.1f us, p99 %.1f us, %zu reads, ctxsw %ld voluntary %ld involuntary\n", mode, n / t,
         lat[n / 2], lat[(size_t)(n * 0.99)], n, r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw);
  return 0;
}
