package io.nvmf4j.cli.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.cli.host.Json;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code perf --cpu-of PID}: the CPU time this process (the initiator) and, optionally, another process (the target,
 * by pid) spent during the measured window, and the collections this JVM ran in it, so a benchmark can state CPU
 * seconds per million I/Os and show that steady state does not allocate. Taken at the window's edges rather than
 * around the whole command, so JVM start-up, connect and ramp are not charged to the I/Os.
 *
 * <p>The other process is read from {@code /proc/PID/stat} (utime + stime, fields 14 and 15, in clock ticks;
 * {@code proc(5)}), the way {@code top} and {@code pidstat} do; this one from the JVM's own process CPU time.
 */
public final class CpuWindow {

    /** USER_HZ: 100 on every Linux architecture the JVM runs on ({@code sysconf(_SC_CLK_TCK)}). */
    static final int CLOCK_TICKS_PER_SECOND = 100;

    private final Long otherPid;
    private long startNanos;
    private long startEpochMillis;
    private long selfStart;
    private long otherStart;
    private long gcStart;
    private long gcMillisStart;
    private long elapsedNanos;
    private long endEpochMillis;
    private long selfNanos;
    private long otherNanos = -1;
    private long collections;
    private long youngStart;
    private long youngCollections;
    private long collectionMillis;
    private boolean begun;
    private boolean ended;

    public CpuWindow(Long otherPid) {
        this.otherPid = otherPid;
    }

    /** At the first I/O of the measured window. */
    public void begin() {
        startEpochMillis = System.currentTimeMillis();
        startNanos = System.nanoTime();
        selfStart = selfCpuNanos();
        otherStart = otherPid == null ? -1 : processCpuNanos(otherPid);
        gcStart = collections();
        youngStart = youngCollections();
        gcMillisStart = collectionMillis();
        begun = true;
    }

    /** When the measured window closes (before the drain). */
    public void end() {
        if (!begun) {
            return;
        }
        elapsedNanos = System.nanoTime() - startNanos;
        endEpochMillis = System.currentTimeMillis();
        selfNanos = selfCpuNanos() - selfStart;
        if (otherPid != null && otherStart >= 0) {
            long now = processCpuNanos(otherPid);
            otherNanos = now >= 0 ? now - otherStart : -1;
        }
        collections = collections() - gcStart;
        youngCollections = youngCollections() - youngStart;
        collectionMillis = collectionMillis() - gcMillisStart;
        ended = true;
    }

    public boolean measured() {
        return ended;
    }

    /** The JSON object {@code perf --json} prints as "cpu" (absent fields: not measured). */
    public ObjectNode json(long ios) {
        ObjectNode o = Json.object();
        o.put("window_seconds", elapsedNanos / 1e9);
        o.put("window_start_epoch_ms", startEpochMillis);
        o.put("window_end_epoch_ms", endEpochMillis);
        o.put("initiator_cpu_seconds", selfNanos / 1e9);
        if (ios > 0) {
            o.put("initiator_cpu_seconds_per_million_ios", selfNanos / 1e9 / ios * 1e6);
        }
        o.put("initiator_gc_collections", collections);
        o.put("initiator_young_collections", youngCollections);
        o.put("initiator_gc_millis", collectionMillis);
        if (otherPid != null) {
            o.put("target_pid", otherPid);
            if (otherNanos >= 0) {
                o.put("target_cpu_seconds", otherNanos / 1e9);
                if (ios > 0) {
                    o.put("target_cpu_seconds_per_million_ios", otherNanos / 1e9 / ios * 1e6);
                }
            }
        }
        return o;
    }

    /** One line under the table. */
    public String describe(long ios) {
        StringBuilder s = new StringBuilder(String.format(java.util.Locale.ROOT,
                "cpu in the %.1f s window: perf %.2f s", elapsedNanos / 1e9, selfNanos / 1e9));
        if (ios > 0) {
            s.append(String.format(java.util.Locale.ROOT, " (%.1f s per million I/Os)", selfNanos / 1e9 / ios * 1e6));
        }
        if (otherPid != null) {
            if (otherNanos >= 0) {
                s.append(String.format(java.util.Locale.ROOT, ", pid %d %.2f s", otherPid, otherNanos / 1e9));
                if (ios > 0) {
                    s.append(String.format(java.util.Locale.ROOT, " (%.1f s per million I/Os)",
                            otherNanos / 1e9 / ios * 1e6));
                }
            } else {
                s.append(", pid ").append(otherPid).append(" not readable");
            }
        }
        s.append(", ").append(youngCollections).append(" young GC(s) in perf");
        return s.toString();
    }

    private static long selfCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return processCpuNanos(ProcessHandle.current().pid());
    }

    /** utime + stime of {@code pid} in nanoseconds, or -1 when it cannot be read (no /proc, process gone). */
    static long processCpuNanos(long pid) {
        try {
            return parseStatCpuNanos(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * utime + stime from a {@code /proc/PID/stat} line. The command name (field 2) is in parentheses and may hold
     * spaces and parentheses itself, so fields are counted from the last ')'.
     */
    static long parseStatCpuNanos(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/PID/stat line");
        }
        String[] f = stat.substring(close + 2).trim().split(" +");
        // f[0] is field 3 (state): utime is field 14 -> f[11], stime field 15 -> f[12].
        if (f.length < 13) {
            throw new IllegalArgumentException("short /proc/PID/stat line");
        }
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return ticks * (1_000_000_000L / CLOCK_TICKS_PER_SECOND);
    }

    private static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    /** G1's "G1 Young Generation" (also Parallel's "PS Scavenge", Serial's "Copy"): the collections allocation causes. */
    private static long youngCollections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            String name = gc.getName();
            if (name.contains("Young") || name.contains("Scavenge") || name.equals("Copy")) {
                n += Math.max(0, gc.getCollectionCount());
            }
        }
        return n;
    }

    private static long collectionMillis() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionTime());
        }
        return n;
    }
}
