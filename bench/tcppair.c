/* The floor of bench/latency-pair.sh: what a QD1 reader's tail becomes beside a second client's large writes when
 * both reach one polling server over loopback TCP, with no NVMe-oF, no RDMA emulation and no Java in the way.
 *
 *   tcppair [-b] SECONDS [WRITER_CPU:WRITER_NICE]      e.g. tcppair 8, tcppair -b 8 1:19, tcppair 8 0:0
 *
 * server  pinned to core 0, one busy-polling loop over both connections (as nvmf4j's poll group is): answers each
 *         64-byte request of the reader with 4 KiB at once, and takes at most TCPPAIR_BUDGET bytes (default
 *         262144, the target's 32 receive FPDUs of 8 KiB) of the writer's data per round before it looks at the
 *         reader again;
 * reader  pinned to core 1, busy-polls its socket (with -b: blocks in recv, so that a writer on its core runs
 *         while it waits, as nvmf4j perf's pollers yield after their spin): one request in flight (QD1), its round
 *         trip measured;
 * writer  (optional) pinned to WRITER_CPU at nice WRITER_NICE: writes 1 MiB messages back to back from 1 s before
 *         the reader starts until it ends.
 * Prints the reader's round trips (ops/s, p50, p99 in us) and the writer's MB/s (10^6 bytes).
 * Build: gcc -O2 -o tcppair tcppair.c */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REQ 64
#define RESP 4096
#define MSG (1 << 20)

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

static void pin(int cpu) {
  cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s);
  if (sched_setaffinity(0, sizeof s, &s)) { perror("sched_setaffinity"); exit(1); }
}

static int dial(struct sockaddr_in *a, char role) {
  int one = 1, c = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(c, (struct sockaddr *)a, sizeof *a)) { perror("connect"); exit(1); }
  if (write(c, &role, 1) != 1) exit(1);
  return c;
}

/* blocking (spin = 0) or busy-polling (spin = 1) exact read/write; returns 0 when the peer went away */
static int full(int fd, char *b, size_t n, int rd, int spin) {
  while (n) {
    ssize_t k = rd ? recv(fd, b, n, spin ? MSG_DONTWAIT : 0) : send(fd, b, n, MSG_NOSIGNAL);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (k <= 0) return 0;
    b += k; n -= (size_t)k;
  }
  return 1;
}

static void serve(int ls, int clients) {
  pin(0);
  long budget = getenv("TCPPAIR_BUDGET") ? atol(getenv("TCPPAIR_BUDGET")) : 262144;
  int rd = -1, wr = -1, one = 1;
  for (int i = 0; i < clients; i++) {
    int s = accept(ls, 0, 0); char role;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!full(s, &role, 1, 1, 0)) exit(1);
    if (role == 'R') rd = s; else wr = s;
  }
  char *sink = malloc(budget), req[REQ], resp[RESP]; size_t have = 0;
  memset(resp, 7, sizeof resp);
  for (;;) {
    ssize_t k = recv(rd, req + have, REQ - have, MSG_DONTWAIT);
    if (k == 0) exit(0);
    if (k > 0 && (have += (size_t)k) == REQ) { have = 0; if (!full(rd, resp, RESP, 0, 0)) exit(0); }
    for (long taken = 0; wr >= 0 && taken < budget;) {
      ssize_t w = recv(wr, sink, (size_t)(budget - taken), MSG_DONTWAIT);
      if (w <= 0) { if (w == 0) wr = -1; break; }
      taken += w;
    }
  }
}

int main(int argc, char **argv) {
  int spin = 1;
  if (argc > 1 && !strcmp(argv[1], "-b")) { spin = 0; argv++; argc--; }
  if (argc < 2) { fprintf(stderr, "usage: tcppair [-b] SECONDS [WRITER_CPU:WRITER_NICE]\n"); return 2; }
  double secs = atof(argv[1]);
  int wcpu = -1, wnice = 0;
  if (argc > 2 && sscanf(argv[2], "%d:%d", &wcpu, &wnice) != 2) { fprintf(stderr, "tcppair: writer is CPU:NICE\n"); return 2; }
  int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t al = sizeof a;
  if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 2) || getsockname(ls, (struct sockaddr *)&a, &al)) { perror("listen"); return 1; }
  pid_t server = fork();
  if (server == 0) serve(ls, wcpu >= 0 ? 2 : 1);
  int pipefd[2]; if (pipe(pipefd)) return 1;
  pid_t writer = -1;
  if (wcpu >= 0) {
    writer = fork();
    if (writer == 0) {
      pin(wcpu); setpriority(PRIO_PROCESS, 0, wnice);
      int c = dial(&a, 'W'); char *m = calloc(1, MSG); double t0 = now(), end = t0 + secs + 1.5; long n = 0;
      while (now() < end && full(c, m, MSG, 0, 0)) n++;
      double mbs = n * (double)MSG / (now() - t0) / 1e6;
      if (write(pipefd[1], &mbs, sizeof mbs) != sizeof mbs) return 1;
      return 0;
    }
  }
  pin(1);
  int c = dial(&a, 'R');
  if (writer > 0) { struct timespec d = { 1, 0 }; nanosleep(&d, 0); }
  char req[REQ] = { 0 }, resp[RESP];
  size_t cap = 1 << 23, nl = 0; double *lat = malloc(cap * sizeof *lat);
  double t0 = now(), end = t0 + secs;
  while (now() < end) {
    double s = now();
    if (!full(c, req, REQ, 0, spin) || !full(c, resp, RESP, 1, spin)) { fprintf(stderr, "tcppair: server went away\n"); return 1; }
    if (nl < cap) lat[nl++] = now() - s;
  }
  double el = now() - t0, mbs = 0;
  qsort(lat, nl, sizeof *lat, cmp);
  if (writer > 0) { if (read(pipefd[0], &mbs, sizeof mbs) != sizeof mbs) mbs = -1; waitpid(writer, 0, 0); }
  printf("reader %.0f ops/s p50 %.1f us p99 %.1f us writer %.0f MB/s\n", nl / el, lat[nl / 2] * 1e6,
         lat[nl * 99 / 100] * 1e6, mbs);
  close(c); kill(server, 9); waitpid(server, 0, 0);
  return 0;
}
