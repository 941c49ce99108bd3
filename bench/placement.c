/*
 * placement: how far apart two CPUs are right now, as the round trip of one cache line between them.
 *
 *   gcc -O2 -o placement bench/placement.c -lpthread
 *   ./placement [CPU_A CPU_B [ROUND_TRIPS]]      (default 0 1 20000)
 *   prints: "round trip 53 ns between cpu 0 and cpu 1"
 *
 * Why: on a virtual machine the hypervisor decides which physical cores the vCPUs run on, and moves them. The
 * 2-vCPU VM bench/README describes gave 51-60 ns when its two vCPUs shared a cache and 250-1,250 ns when they did
 * not, switching every few seconds to minutes; a loopback NVMe/TCP pair (target on one vCPU, initiator on the
 * other) moves every byte across that distance, and its 128 KiB rates halve in the far placement, for SPDK's
 * pair and nvmf4j's alike. bench/spdk.sh runs this before and after each measurement, with both cores otherwise
 * idle, so that a comparison can tell a slower stack from a farther placement.
 *
 * Two threads pinned to the two CPUs take turns writing one shared counter: each waits (spinning) until the
 * other has moved it, so every step is one transfer of the line from one core's cache to the other's. The
 * median of 5 batches is printed, so one preemption does not decide the figure.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long turn __attribute__((aligned(64)));
static long trips;
static int cpu_b;

static int pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* The second CPU's side: answers each odd value with the next even one, for 5 batches. */
static void *answer(void *unused) {
    (void) unused;
    if (pin(cpu_b) != 0) {
        perror("sched_setaffinity");
        exit(2);
    }
    for (long i = 1; i <= 5 * trips; i++) {
        while (turn != 2 * i - 1) {
        }
        turn = 2 * i;
    }
    return NULL;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int cpu_a = argc > 2 ? atoi(argv[1]) : 0;
    cpu_b = argc > 2 ? atoi(argv[2]) : 1;
    trips = argc > 3 ? atol(argv[3]) : 20000;
    if (trips < 1 || cpu_a == cpu_b) {
        fprintf(stderr, "usage: placement [CPU_A CPU_B [ROUND_TRIPS]] (two different CPUs, ROUND_TRIPS >= 1)\n");
        return 2;
    }
    if (pin(cpu_a) != 0) {
        perror("sched_setaffinity");
        return 2;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, answer, NULL) != 0) {
        perror("pthread_create");
        return 2;
    }
    double batch[5];
    long i = 1;
    for (int b = 0; b < 5; b++) {
        double t0 = now_ns();
        for (long k = 0; k < trips; k++, i++) {
            turn = 2 * i - 1;
            while (turn != 2 * i) {
            }
        }
        batch[b] = (now_ns() - t0) / trips;
    }
    pthread_join(t, NULL);
    qsort(batch, 5, sizeof batch[0], by_value);
    printf("round trip %.0f ns between cpu %d and cpu %d\n", batch[2], cpu_a, cpu_b);
    return 0;
}
