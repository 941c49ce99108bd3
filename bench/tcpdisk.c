/* The floor of any disk target over TCP on this machine: the least a user-space target can do per I/O when the
 * command comes over a TCP socket and the data goes to a file through io_uring, on one polling core, with the host
 * polling on the other. bench/disk.sh puts it beside fio on the file (which spends a whole core on the disk alone)
 * and beside nvmf4j (which spends its one core on the disk and on NVMe-oF over softiwarp, itself over TCP).
 *   tcpdisk FILE RW BS DEPTH SECONDS [SERVER_CPU CLIENT_CPU [poll|wait]]
 *   RW  randread | randwrite | read | write   (read/write: sequential)
 * The server: one busy-polling thread with a non-blocking TCP socket (TCP_NODELAY) and an io_uring on the file
 * (O_DIRECT, the file and every buffer registered, COOP_TASKRUN): each round receives what the socket holds,
 * prepares one SQE per whole request, submits them with one io_uring_enter, reaps the CQ, queues every answer
 * (its header, and a read's data straight from its registered buffer: no copy) and writes what the socket takes
 * of that queue with one sendmsg(), never waiting for room: the next round goes on receiving and submitting while
 * a 128 KiB answer is still leaving. On the wire per I/O: a 16-byte request (tag, op, offset; for a write, BS
 * bytes of data behind it) and a 16-byte answer (tag, result; for a read, BS bytes behind it): no NVMe capsule,
 * no RDMA framing, no CRC. The client keeps DEPTH requests in flight, busy-polls its socket, and after 1 s of
 * warm-up counts SECONDS. With `wait` both sides sleep in poll(2) instead of spinning whenever a round found
 * nothing to do (the server on its socket and its ring): on a virtual machine a spinning core can slow the
 * virtual disk itself, and this says how far.
 * Prints one line: IOPS, MB/s, p50 and p99 (us), and the server's CPU (user + system) per I/O in us.
 * Build: gcc -O2 -o tcpdisk tcpdisk.c -luring  (Debian: liburing-dev) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HDR 16
#define MAX_DEPTH 256

static int waiting; /* `wait`: sleep in poll(2) when a round found nothing to do */

struct req { uint32_t tag, op; uint64_t offset; };
struct ans { uint32_t tag; int32_t result; uint64_t pad; };

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static unsigned long long rnd = 88172645463325252ULL;
static unsigned long long xorshift(void) { rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17; return rnd; }
static void die(const char *what) { perror(what); exit(1); }
static void pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set)) die("sched_setaffinity");
}

/* Sends all of [b, b+n) on a non-blocking socket, spinning on EAGAIN (the peer polls too). */
static void send_all(int s, const char *b, size_t n) {
  while (n) {
    ssize_t k = send(s, b, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (k <= 0) die("send");
    b += k; n -= (size_t)k;
  }
}

static void serve(int s, const char *path, int write_mode, size_t bs, int depth) {
  int fd = open(path, (write_mode ? O_RDWR : O_RDONLY) | O_DIRECT);
  if (fd < 0) die(path);
  struct io_uring ring;
  struct io_uring_params p; memset(&p, 0, sizeof p);
  p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  int rc = io_uring_queue_init_params(2 * MAX_DEPTH, &ring, &p);
  if (rc < 0) { fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-rc)); exit(1); }
  char *data; if (posix_memalign((void **)&data, 4096, bs * depth)) die("posix_memalign");
  memset(data, 0, bs * depth);
  struct iovec iov[MAX_DEPTH];
  for (int i = 0; i < depth; i++) { iov[i].iov_base = data + bs * i; iov[i].iov_len = bs; }
  if ((rc = io_uring_register_buffers(&ring, iov, depth)) < 0) { fprintf(stderr, "register_buffers: %s\n", strerror(-rc)); exit(1); }
  if ((rc = io_uring_register_files(&ring, &fd, 1)) < 0) { fprintf(stderr, "register_files: %s\n", strerror(-rc)); exit(1); }
  size_t incap = (size_t)depth * (HDR + bs) * 2;
  char *in = malloc(incap);
  size_t inoff = 0, inlen = 0;
  /* answers not yet sent, in order: each a header and, for a read, its tag's buffer (which the client cannot
   * reuse before it has the whole answer, so it stays put until sent); at most 2 * depth pending */
  static struct ans hdrs[MAX_DEPTH];
  static struct iovec q[4 * MAX_DEPTH];
  int qh = 0, qt = 0;
  for (;;) {
    ssize_t k = recv(s, in + inlen, incap - inlen, MSG_DONTWAIT);
    if (k == 0) break;
    if (k < 0 && errno != EAGAIN && errno != EINTR) die("recv");
    if (k > 0) inlen += (size_t)k;
    int prepared = 0;
    while (inlen - inoff >= HDR) {
      struct req r; memcpy(&r, in + inoff, HDR);
      size_t need = HDR + (r.op ? bs : 0);
      if (inlen - inoff < need) break;
      char *buf = data + bs * r.tag;
      struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
      if (r.op) {
        memcpy(buf, in + inoff + HDR, bs);
        io_uring_prep_write_fixed(sqe, 0, buf, bs, r.offset, (int)r.tag);
      } else {
        io_uring_prep_read_fixed(sqe, 0, buf, bs, r.offset, (int)r.tag);
      }
      sqe->flags |= IOSQE_FIXED_FILE;
      io_uring_sqe_set_data64(sqe, r.tag | (uint64_t)r.op << 32);
      inoff += need; prepared++;
    }
    if (inoff == inlen) inoff = inlen = 0;
    else if (inoff > incap / 2) { memmove(in, in + inoff, inlen - inoff); inlen -= inoff; inoff = 0; }
    if (prepared) io_uring_submit(&ring);
    else if (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_TASKRUN) io_uring_get_events(&ring);
    struct io_uring_cqe *cqes[MAX_DEPTH];
    unsigned n = io_uring_peek_batch_cqe(&ring, cqes, MAX_DEPTH);
    for (unsigned i = 0; i < n; i++) {
      uint64_t ud = io_uring_cqe_get_data64(cqes[i]);
      uint32_t tag = (uint32_t)ud;
      hdrs[tag] = (struct ans){ .tag = tag, .result = cqes[i]->res };
      q[qt++] = (struct iovec){ .iov_base = &hdrs[tag], .iov_len = HDR };
      if (!(ud >> 32)) q[qt++] = (struct iovec){ .iov_base = data + bs * tag, .iov_len = bs };
    }
    if (n) io_uring_cq_advance(&ring, n);
    ssize_t sent = 0;
    if (qh < qt) {
      struct msghdr m = { .msg_iov = q + qh, .msg_iovlen = (size_t)(qt - qh < IOV_MAX ? qt - qh : IOV_MAX) };
      sent = sendmsg(s, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (sent < 0 && errno != EAGAIN && errno != EINTR) die("sendmsg");
      for (ssize_t left = sent; left > 0;) {
        if ((size_t)left >= q[qh].iov_len) { left -= (ssize_t)q[qh].iov_len; qh++; }
        else { q[qh].iov_base = (char *)q[qh].iov_base + left; q[qh].iov_len -= (size_t)left; left = 0; }
      }
      if (qh == qt) qh = qt = 0;
      else if (qt > 2 * MAX_DEPTH) { memmove(q, q + qh, (size_t)(qt - qh) * sizeof *q); qt -= qh; qh = 0; }
    }
    if (waiting && k <= 0 && !prepared && n == 0 && sent <= 0) {
      struct pollfd pf[2] = { { .fd = s, .events = POLLIN | (qh < qt ? POLLOUT : 0) },
                              { .fd = ring.ring_fd, .events = POLLIN } };
      poll(pf, 2, 10);
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 6 || (argc > 8 && strcmp(argv[8], "poll") && strcmp(argv[8], "wait"))) {
    fprintf(stderr, "usage: tcpdisk FILE randread|randwrite|read|write BS DEPTH SECONDS [SERVER_CPU CLIENT_CPU [poll|wait]]\n");
    return 2;
  }
  waiting = argc > 8 && !strcmp(argv[8], "wait");
  const char *path = argv[1], *rw = argv[2];
  size_t bs = (size_t)atol(argv[3]);
  int depth = atoi(argv[4]);
  double seconds = atof(argv[5]);
  int scpu = argc > 7 ? atoi(argv[6]) : -1, ccpu = argc > 7 ? atoi(argv[7]) : -1;
  int is_write = strstr(rw, "write") != NULL, is_rand = strncmp(rw, "rand", 4) == 0;
  if (bs < 512 || bs % 512 || depth < 1 || depth > MAX_DEPTH || seconds <= 0) { fprintf(stderr, "tcpdisk: bad BS, DEPTH or SECONDS\n"); return 2; }
  struct stat st; if (stat(path, &st)) die(path);
  unsigned long long blocks = (unsigned long long)st.st_size / bs;
  if (blocks < 1) { fprintf(stderr, "%s: smaller than one block\n", path); return 1; }

  int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t al = sizeof a;
  if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1) || getsockname(ls, (struct sockaddr *)&a, &al)) die("listen");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    pin(scpu);
    int s = accept(ls, 0, 0);
    if (s < 0) die("accept");
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    serve(s, path, is_write, bs, depth);
    _exit(0);
  }
  pin(ccpu);
  int c = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(c, (struct sockaddr *)&a, sizeof a)) die("connect");

  char *wdata = malloc(bs);
  for (size_t i = 0; i < bs; i++) wdata[i] = (char)xorshift();
  size_t reqlen = HDR + (is_write ? bs : 0), anslen = HDR + (is_write ? 0 : bs);
  size_t incap = (size_t)depth * anslen * 2, inoff = 0, inlen = 0;
  char *in = malloc(incap), *out = malloc((size_t)depth * reqlen);
  double start[MAX_DEPTH];
  unsigned long long next = 0;
  size_t cap = 1 << 23, n = 0;
  double *lat = malloc(cap * sizeof *lat);
  size_t outlen = 0;
  for (int t = 0; t < depth; t++) {
    struct req r = { .tag = (uint32_t)t, .op = (uint32_t)is_write,
                     .offset = (is_rand ? xorshift() % blocks : next++ % blocks) * bs };
    memcpy(out + outlen, &r, HDR); outlen += HDR;
    if (is_write) { memcpy(out + outlen, wdata, bs); outlen += bs; }
    start[t] = now();
  }
  send_all(c, out, outlen);
  double t0 = now(), count_from = t0 + 1.0, end = count_from + seconds;
  int counting = 0, stopping = 0, inflight = depth;
  while (inflight > 0) {
    ssize_t k = recv(c, in + inlen, incap - inlen, MSG_DONTWAIT);
    if (k == 0) { fprintf(stderr, "tcpdisk: the server closed the connection\n"); return 1; }
    if (k < 0 && errno != EAGAIN && errno != EINTR) die("recv");
    if (k <= 0) {
      if (waiting) { struct pollfd pf = { .fd = c, .events = POLLIN }; poll(&pf, 1, 10); }
      continue;
    }
    inlen += (size_t)k;
    double t = now();
    if (!counting && t >= count_from) { counting = 1; n = 0; t0 = t; }
    if (t >= end) stopping = 1;
    outlen = 0;
    while (inlen - inoff >= anslen) {
      struct ans r; memcpy(&r, in + inoff, HDR);
      inoff += anslen;
      if (r.result != (int32_t)bs) {
        fprintf(stderr, "tcpdisk: the server's %s returned %d (%s)\n", is_write ? "write" : "read", r.result,
                r.result < 0 ? strerror(-r.result) : "short");
        return 1;
      }
      if (counting && n < cap) lat[n++] = (t - start[r.tag]) * 1e6;
      if (stopping) { inflight--; continue; }
      struct req q = { .tag = r.tag, .op = (uint32_t)is_write,
                       .offset = (is_rand ? xorshift() % blocks : next++ % blocks) * bs };
      memcpy(out + outlen, &q, HDR); outlen += HDR;
      if (is_write) { memcpy(out + outlen, wdata, bs); outlen += bs; }
      start[r.tag] = t;
    }
    if (inoff == inlen) inoff = inlen = 0;
    else if (inoff > incap / 2) { memmove(in, in + inoff, inlen - inoff); inlen -= inoff; inoff = 0; }
    if (outlen) send_all(c, out, outlen);
  }
  double elapsed = now() - t0;
  close(c);
  struct rusage ru; int status;
  if (wait4(pid, &status, 0, &ru) < 0) die("wait4");
  if (!WIFEXITED(status) || WEXITSTATUS(status)) { fprintf(stderr, "tcpdisk: the server failed\n"); return 1; }
  double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  if (n == 0) { fprintf(stderr, "tcpdisk: nothing completed\n"); return 1; }
  qsort(lat, n, sizeof *lat, cmp);
  printf("tcpdisk %s bs=%zu qd=%d: %.0f IOPS, %.1f MB/s, p50 %.1f us, p99 %.1f us, server CPU per I/O %.2f us\n", rw, bs,
         depth, n / elapsed, n * (double)bs / elapsed / 1e6, lat[n / 2], lat[(size_t)(n * 0.99)],
         cpu / (elapsed + 1.0) / (n / elapsed) * 1e6);
  return 0;
}
