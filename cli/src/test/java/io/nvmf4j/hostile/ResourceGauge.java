package io.nvmf4j.hostile;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Threads and resident memory of this JVM (target and hosts live in it), so a test can say "flat": after an attack
 * and a settling pause, at most a few threads and a bounded number of bytes more than before it. Both samples are
 * taken after a full collection ({@code System.gc()}, which lets G1 give unused heap back to the system): the garbage
 * an attack leaves in the Java heap is not a leak, and without it the figure measured the heap's sizing policy
 * (run alone, a sweep grew RSS by 220 MiB of collectable garbage that a full collection returned).
 */
final class ResourceGauge {

    record Sample(int threads, long rssBytes) {
    }

    static Sample now() {
        return new Sample(ManagementFactory.getThreadMXBean().getThreadCount(), rssBytes());
    }

    /** A sample after a full collection. */
    static Sample collected() {
        System.gc();
        return now();
    }

    /** VmRSS from /proc/self/status (Linux), in bytes. */
    static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: no RSS figure
        }
        return 0;
    }

    /**
     * Waits up to {@code settleMillis} for the thread count to come back within {@code extraThreads} of the baseline
     * and RSS within {@code extraBytes}; returns the last sample and a verdict.
     */
    static String flatAgainst(Sample baseline, int extraThreads, long extraBytes, long settleMillis)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + settleMillis;
        Sample s;
        do {
            s = collected();
            if (s.threads() <= baseline.threads() + extraThreads
                    && s.rssBytes() <= baseline.rssBytes() + extraBytes) {
                return null;
            }
            Thread.sleep(250);
        } while (System.currentTimeMillis() < deadline);
        return "not flat: threads " + baseline.threads() + " -> " + s.threads() + ", RSS " + (baseline.rssBytes() >> 20)
                + " MiB -> " + (s.rssBytes() >> 20) + " MiB";
    }
}
