package io.nvmf4j.cli.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Bytes allocated on the Java heap by every thread of this JVM (the benchmark's threads and the
 * provider's progress threads alike) and collections run, between {@link #start()} and {@link #stop()}:
 * the evidence that the steady state allocates nothing per operation. Uses
 * {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}; start and stop allocate a little
 * themselves, which a long window divides away.
 */
final class AllocationMeter {
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private Map<Long, Long> before = new HashMap<>();
    private long gcBefore;
    private long allocated;
    private long collections;
    private Map<Long, Long> perThread = Map.of();
    private final Map<Long, String> names = new HashMap<>();

    AllocationMeter() {
        threads.setThreadAllocatedMemoryEnabled(true);
    }

    void start() {
        before = snapshot();
        gcBefore = gcCount();
    }

    void stop() {
        Map<Long, Long> after = snapshot();
        long gcAfter = gcCount();
        long sum = 0;
        Map<Long, Long> deltas = new HashMap<>();
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            // a thread that started inside the window counts from zero
            long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            sum += delta;
            deltas.put(e.getKey(), delta);
        }
        allocated = sum;
        collections = gcAfter - gcBefore;
        perThread = deltas;
        // names now, while the threads of the window are still alive
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(after.keySet().stream()
                .mapToLong(Long::longValue).toArray())) {
            if (info != null) {
                names.put(info.getThreadId(), info.getThreadName());
            }
        }
    }

    /** The threads that allocated most in the window, as "name bytes" (called after {@link #stop()}). */
    String topAllocators(int n) {
        StringBuilder text = new StringBuilder();
        perThread.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<Long, Long>comparingByValue().reversed())
                .limit(n)
                .forEach(e -> {
                    text.append(text.isEmpty() ? "" : ", ")
                            .append(names.getOrDefault(e.getKey(), "thread " + e.getKey())).append(' ')
                            .append(String.format("%,d", e.getValue()));
                });
        return text.isEmpty() ? "none" : text.toString();
    }

    long allocatedBytes() {
        return allocated;
    }

    long collections() {
        return collections;
    }

    private Map<Long, Long> snapshot() {
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, Long> map = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                map.put(ids[i], bytes[i]);
            }
        }
        return map;
    }

    private long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean gc : collectors) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }
}
