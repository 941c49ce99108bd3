/*
 * tcpstream: the byte stream of a loopback NVMe/TCP pair's 128 KiB writes, with no NVMe-oF and no Java: what the
 * machine gives any stack that moves those bytes from core 1 to core 0.
 *
 *   gcc -O2 -o tcpstream bench/tcpstream.c -lpthread
 *   ./tcpstream [SECONDS]                         (default 1)
 *   prints: "stream 4604 MB/s"  (10^6 bytes of data per second)
 *
 * writer  pinned to core 1: writev([72-byte capsule][24-byte H2CData header][128 KiB of data]) back to back on a
 *         non-blocking socket with TCP_NODELAY, busy-polling (as a host's poll thread sends a command and its
 *         data), the data from eight 128 KiB slots of one page-aligned buffer of random bytes;
 * reader  pinned to core 0: busy-polls read() of up to 1 MiB into one page-aligned buffer (as a target's poll
 *         group drains its socket).
 * bench/README.md ("What the phases are") runs it between two bench/placement probes: on a VM whose vCPUs the
 * hypervisor moves, its rate follows their placement.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define DATA (128 * 1024)
#define SLOTS 8

static int listener;
static volatile int done;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        exit(2);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *reader(void *unused) {
    (void) unused;
    pin(0);
    int fd = accept(listener, NULL, NULL);
    if (fd < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) != 0) {
        perror("accept");
        exit(2);
    }
    char *buf = aligned_alloc(4096, 1 << 20);
    while (!done) {
        ssize_t n = read(fd, buf, 1 << 20);
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
            break;
        }
    }
    close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1;
    if (seconds <= 0) {
        fprintf(stderr, "usage: tcpstream [SECONDS > 0]\n");
        return 2;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *) &a, sizeof a) != 0 || listen(listener, 1) != 0
        || getsockname(listener, (struct sockaddr *) &a, &len) != 0) {
        perror("listen on 127.0.0.1");
        return 2;
    }
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    pin(1);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *) &a, sizeof a) != 0 || fcntl(fd, F_SETFL, O_NONBLOCK) != 0) {
        perror("connect to 127.0.0.1");
        return 2;
    }
    char *data = aligned_alloc(4096, SLOTS * DATA);
    for (long i = 0; i < SLOTS * DATA; i++) {
        data[i] = (char) rand();
    }
    static char headers[128];
    struct iovec v[3];
    int first = 0, left = 0;
    long slot = 0, bytes = 0;
    double t0 = now(), t1;
    do {
        if (left == 0) {   /* the next command: its capsule, its H2CData header, its data */
            v[0] = (struct iovec) {headers, 72};
            v[1] = (struct iovec) {headers + 72, 24};
            v[2] = (struct iovec) {data + (slot++ % SLOTS) * DATA, DATA};
            first = 0;
            left = 3;
        }
        ssize_t n = writev(fd, v + first, left);
        if (n < 0 && errno != EAGAIN) {
            perror("writev");
            return 1;
        }
        while (n > 0) {   /* step over what the socket took */
            size_t took = (size_t) n < v[first].iov_len ? (size_t) n : v[first].iov_len;
            if (first == 2) {
                bytes += took;
            }
            v[first].iov_base = (char *) v[first].iov_base + took;
            v[first].iov_len -= took;
            n -= took;
            if (v[first].iov_len == 0) {
                first++;
                left--;
            }
        }
        t1 = now();
    } while (t1 - t0 < seconds);
    done = 1;
    close(fd);
    pthread_join(t, NULL);
    printf("stream %.0f MB/s\n", bytes / (t1 - t0) / 1e6);
    return 0;
}
