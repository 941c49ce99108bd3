package io.nvmf4j.cli.perf;

import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiConsumer;

/**
 * Keeps {@code depth} I/Os in flight on one I/O queue. Each completion is handled on that queue's polling
 * completion thread and the next I/O is submitted right there: no hand-off to another thread, no sleep (DESIGN.md:
 * a wake-up costs ~55 µs against a ~7 µs polled round trip).
 *
 * <p>Pre-allocated: one registered buffer with a slice per slot (zero-copy keyed SGLs), per-slot state in arrays,
 * one completion callback object per slot, counters in an {@link AtomicLongArray} written by the one completion
 * thread and read by the progress line. What the initiator library allocates per command (its future and command
 * objects) is its own; see NOTES-cli.md for the reusable-command API that would remove it.
 *
 * <p>I/O units: the region is cut into units of one I/O each; worker {@code w} of {@code n} owns units
 * {@code w, w+n, w+2n ...}, so no two workers ever touch the same blocks and verification needs no shared state.
 * With {@code --verify} a unit with an I/O in flight is not chosen again until it completes.
 */
final class PerfWorker {

    // Counter slots in the AtomicLongArray.
    static final int READS = 0;
    static final int READ_BYTES = 1;
    static final int WRITES = 2;
    static final int WRITE_BYTES = 3;
    static final int LATENCY_NANOS = 4;
    static final int VERIFIED_BLOCKS = 5;
    static final int COUNTERS = 6;

    private final int index;
    private final int workers;
    private final Namespace ns;
    private final IoBuffer buffer;
    private final MemorySegment memory;
    private final PerfSpec spec;
    private final RunControl control;
    private final LatencyMeter readLatency;
    private final LatencyMeter writeLatency;
    private final int blockSize;
    private final int blocksPerIo;
    private final long units;
    private final int readPercent;
    private final long runId;
    final AtomicLongArray counters = new AtomicLongArray(COUNTERS);

    private final long[] submitNanos;
    private final boolean[] slotRead;
    private final long[] slotUnit;
    private final int[] generation; // per local unit, verify only
    private final boolean[] busy;   // per local unit, verify only
    private final Completion[] completions;

    private long rng;
    private long cursor;
    private int inFlight;
    private boolean prefilling;
    private CountDownLatch idle;

    PerfWorker(int index, int workers, Namespace ns, IoBuffer buffer, PerfSpec spec, RunControl control,
            LatencyMeter readLatency, LatencyMeter writeLatency, long regionBlocks, long runId, long seed) {
        this.index = index;
        this.workers = workers;
        this.ns = ns;
        this.buffer = buffer;
        this.memory = buffer.segment();
        this.spec = spec;
        this.control = control;
        this.readLatency = readLatency;
        this.writeLatency = writeLatency;
        this.blockSize = Math.toIntExact(ns.blockSize());
        this.blocksPerIo = spec.ioSize() / blockSize;
        long totalUnits = regionBlocks / blocksPerIo;
        this.units = totalUnits / workers;
        this.readPercent = spec.effectiveReadPercent();
        this.runId = runId;
        this.rng = seed == 0 ? 0x2545_F491_4F6C_DD1DL : seed;
        int depth = spec.depth();
        this.submitNanos = new long[depth];
        this.slotRead = new boolean[depth];
        this.slotUnit = new long[depth];
        this.completions = new Completion[depth];
        for (int i = 0; i < depth; i++) {
            completions[i] = new Completion(i);
        }
        if (spec.verify()) {
            this.generation = new int[Math.toIntExact(units)];
            this.busy = new boolean[Math.toIntExact(units)];
        } else {
            this.generation = null;
            this.busy = null;
            // Writes without verify carry a fixed non-zero pattern, written once.
            for (long at = 0; at + 8 <= memory.byteSize(); at += 8) {
                memory.set(VerifyPattern.WORD, at, VerifyPattern.mix(at + runId));
            }
        }
    }

    long units() {
        return units;
    }

    /** Starts the prefill pass (verify): every unit written once, sequentially; {@code done} counts down at the end. */
    synchronized void startPrefill(CountDownLatch done) {
        prefilling = true;
        cursor = 0;
        idle = done;
        for (int slot = 0; slot < spec.depth() && cursor < units; slot++) {
            issuePrefill(slot);
        }
        if (inFlight == 0) {
            prefilling = false;
            done.countDown();
        }
    }

    /** Starts the run proper; {@code drained} counts down once the run is stopped and nothing is in flight. */
    synchronized void start(CountDownLatch drained) {
        prefilling = false;
        cursor = 0;
        idle = drained;
        for (int slot = 0; slot < spec.depth() && !control.stopped(); slot++) {
            issue(slot);
        }
        if (inFlight == 0) {
            drained.countDown();
            idle = null;
        }
    }

    /** For the end of a run that was stopped while this worker had nothing in flight. */
    synchronized void releaseIfIdle() {
        if (inFlight == 0 && idle != null) {
            idle.countDown();
            idle = null;
        }
    }

    // ---- submission (under the monitor) ---------------------------------------------------------------------

    private void issuePrefill(int slot) {
        long unit = cursor++;
        submit(slot, unit, false);
    }

    private void issue(int slot) {
        boolean read = readPercent == 100 || (readPercent > 0 && Long.remainderUnsigned(next(), 100) < readPercent);
        long unit = pickUnit();
        if (unit < 0) {
            return; // every unit busy (tiny region, deep queue): this slot rests until the next completion
        }
        submit(slot, unit, read);
    }

    private void submit(int slot, long unit, boolean read) {
        long slba = (unit * workers + index) * blocksPerIo;
        long offset = (long) slot * spec.ioSize();
        if (busy != null) {
            busy[(int) unit] = true;
            if (!read) {
                int gen = ++generation[(int) unit];
                for (int b = 0; b < blocksPerIo; b++) {
                    VerifyPattern.fill(memory, offset + (long) b * blockSize, blockSize, slba + b, runId, gen);
                }
            }
        }
        slotRead[slot] = read;
        slotUnit[slot] = unit;
        inFlight++;
        submitNanos[slot] = System.nanoTime();
        try {
            if (read) {
                ns.readAsync(slba, blocksPerIo, buffer, offset).whenComplete(completions[slot]);
            } else {
                ns.writeAsync(slba, blocksPerIo, buffer, offset).whenComplete(completions[slot]);
            }
        } catch (RuntimeException e) {
            inFlight--;
            if (busy != null) {
                busy[(int) unit] = false;
            }
            control.fail(e);
        }
    }

    private long pickUnit() {
        if (units == 0) {
            return -1;
        }
        long unit;
        if (spec.workload().random()) {
            unit = Long.remainderUnsigned(next(), units);
        } else {
            unit = cursor;
            cursor = cursor + 1 == units ? 0 : cursor + 1;
        }
        if (busy == null) {
            return unit;
        }
        for (long tries = 0; tries < units; tries++) {
            if (!busy[(int) unit]) {
                if (!spec.workload().random()) {
                    cursor = unit + 1 == units ? 0 : unit + 1;
                }
                return unit;
            }
            unit = unit + 1 == units ? 0 : unit + 1;
        }
        return -1;
    }

    /** xorshift64* (Vigna 2016): a random LBA without allocation or shared state. */
    private long next() {
        long x = rng;
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        rng = x;
        return x * 0x2545_F491_4F6C_DD1DL;
    }

    // ---- completion (on the queue's completion thread) ------------------------------------------------------

    private synchronized void completed(int slot, Throwable error) {
        long latency = System.nanoTime() - submitNanos[slot];
        inFlight--;
        boolean read = slotRead[slot];
        long unit = slotUnit[slot];
        if (error != null) {
            control.fail(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
        } else {
            if (busy != null) {
                busy[(int) unit] = false;
                if (read) {
                    verify(slot, unit);
                }
            }
            if (!prefilling && control.measuring()) {
                if (read) {
                    readLatency.record(latency);
                    counters.lazySet(READS, counters.get(READS) + 1);
                    counters.lazySet(READ_BYTES, counters.get(READ_BYTES) + spec.ioSize());
                } else {
                    writeLatency.record(latency);
                    counters.lazySet(WRITES, counters.get(WRITES) + 1);
                    counters.lazySet(WRITE_BYTES, counters.get(WRITE_BYTES) + spec.ioSize());
                }
                counters.lazySet(LATENCY_NANOS, counters.get(LATENCY_NANOS) + latency);
            }
        }
        if (prefilling) {
            if (error == null && cursor < units && !control.stopped()) {
                issuePrefill(slot);
            }
        } else if (error == null && !control.stopped()) {
            issue(slot);
        }
        if (inFlight == 0 && idle != null && (prefilling || control.stopped() || error != null)) {
            prefilling = false;
            idle.countDown();
            idle = null;
        }
    }

    private void verify(int slot, long unit) {
        int gen = generation[(int) unit];
        if (gen == 0) {
            return; // never written in this run (no prefill): nothing to compare against
        }
        long slba = (unit * workers + index) * blocksPerIo;
        long offset = (long) slot * spec.ioSize();
        for (int b = 0; b < blocksPerIo; b++) {
            long at = offset + (long) b * blockSize;
            int diff = VerifyPattern.check(memory, at, blockSize, slba + b, runId, gen);
            if (diff >= 0) {
                control.fail(new VerifyException(slba + b, gen, diff, VerifyPattern.describeFound(memory, at)));
                return;
            }
        }
        counters.lazySet(VERIFIED_BLOCKS, counters.get(VERIFIED_BLOCKS) + blocksPerIo);
    }

    /** One per slot, made once: {@code whenComplete} gets the same object every time. */
    private final class Completion implements BiConsumer<Void, Throwable> {
        private final int slot;

        Completion(int slot) {
            this.slot = slot;
        }

        @Override
        public void accept(Void ignored, Throwable error) {
            completed(slot, error);
        }
    }
}
