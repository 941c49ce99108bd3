package io.nvmf4j.cli.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** perf --cpu-of: CPU seconds of perf and of another process over the measured window. */
class CpuWindowTest {

    @Test
    void utimeAndStimeAreFields14And15CountedFromTheLastParenthesis() {
        // proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 30 0 123 456 789";
        assertEquals((250 + 75) * 10_000_000L, CpuWindow.parseStatCpuNanos(stat));
    }

    @Test
    void aTruncatedStatLineIsRefusedNotMisread() {
        assertThrows(IllegalArgumentException.class, () -> CpuWindow.parseStatCpuNanos("4242 (java) S 1 2 3"));
        assertThrows(IllegalArgumentException.class, () -> CpuWindow.parseStatCpuNanos("no parenthesis"));
    }

    @Test
    void anAbsentProcessReadsAsMinusOne() {
        assertEquals(-1, CpuWindow.processCpuNanos(Long.MAX_VALUE));
    }

    @Test
    @Timeout(10)
    void aBusyWindowChargesCpuToThisProcessAndToThePidAsked() {
        long self = ProcessHandle.current().pid();
        CpuWindow w = new CpuWindow(self);
        assertFalse(w.measured());
        w.begin();
        // spin until this thread has had 300 ms of CPU (on a loaded machine 300 ms of wall time may give far less)
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuUntil = threads.getCurrentThreadCpuTime() + 300_000_000L;
        long until = System.nanoTime() + 300_000_000L;
        long x = 0;
        while (System.nanoTime() < until || threads.getCurrentThreadCpuTime() < cpuUntil) {
            x += Long.numberOfTrailingZeros(x + System.nanoTime());
        }
        w.end();
        assertTrue(w.measured());
        ObjectNode o = w.json(1_000_000);
        assertTrue(o.get("initiator_cpu_seconds").asDouble() >= 0.1, o.toString() + x);
        assertEquals(self, o.get("target_pid").asLong());
        // /proc counts in 10 ms ticks: the same process read both ways agrees within a few ticks
        assertEquals(o.get("initiator_cpu_seconds").asDouble(), o.get("target_cpu_seconds").asDouble(), 0.1);
        assertEquals(o.get("initiator_cpu_seconds").asDouble(),
                o.get("initiator_cpu_seconds_per_million_ios").asDouble(), 1e-9, "1 million I/Os");
        assertTrue(o.get("window_end_epoch_ms").asLong() - o.get("window_start_epoch_ms").asLong() >= 290);
        assertTrue(w.describe(1_000_000).contains("pid " + self));
    }
}
