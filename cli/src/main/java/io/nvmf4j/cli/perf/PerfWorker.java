package io.nvmf4j.cli.perf;

import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.IoCallback;
import io.nvmf4j.initiator.IoCompletionHandler;
import io.nvmf4j.initiator.IoRequest;
import io.nvmf4j.initiator.MultipathNamespace;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmfException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Keeps {@code depth} I/Os in flight on one I/O queue. Each completion is handled on that queue's polling
 * completion thread and the next I/O is submitted right there: no hand-off to another thread, no sleep (bench/tcprr.c:
 * a wake-up costs ~55 µs against a ~7 µs polled round trip).
 *
 * <p>Pre-allocated: one registered buffer with a slice per slot (zero-copy keyed SGLs), per-slot state in arrays,
 * one reusable {@link IoRequest} per slot (the library's allocation-free form: set up, submitted, and set up again
 * in its completion handler), counters in an {@link AtomicLongArray} written by the one completion thread and read
 * by the progress line. Steady-state I/O allocates nothing in this class or in the library. Only when one I/O is
 * larger than one command may carry ({@link Namespace#maxBlocksPerRequest()}, MDTS) does it go through the
 * splitting callback form ({@link Namespace#submitRead}), which allocates per I/O; the prefill pass uses that
 * form too (its 128 KiB writes may exceed MDTS, and it is not measured).
 *
 * <p>I/O units: the region is cut into units of one I/O each; worker {@code w} of {@code n} owns the w-th of n
 * equal contiguous slices (fio's {@code offset_increment}), so no two workers ever touch the same blocks and
 * verification needs no shared state. With {@code --verify} a unit with an I/O in flight is not chosen again until
 * it completes, and a prefill pass first writes every unit once with large sequential writes
 * ({@link #PREFILL_BYTES} each, whatever {@code -o} is).
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

    /** Bytes per prefill write (rounded down to whole I/O units): large, so the prefill is quick. */
    static final int PREFILL_BYTES = 128 * 1024;
    /** Prefill writes in flight per worker. */
    static final int PREFILL_DEPTH = 4;

    private final int index;
    private final int workers;
    private final Namespace ns;
    /** With several paths: the I/O goes here instead (copied from the buffer; see {@link MultipathNamespace}). */
    private final MultipathNamespace multipath;
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
    /** One reusable request per slot; null when one I/O exceeds one command (the splitting form is used). */
    private final IoRequest[] requests;
    private final IoBuffer prefillBuffer;
    private final int unitsPerPrefill;
    private final long[] prefillFirstUnit = new long[PREFILL_DEPTH];
    private final int[] prefillUnits = new int[PREFILL_DEPTH];

    private long rng;
    private long cursor;
    private int inFlight;
    private boolean prefilling;
    private CountDownLatch idle;

    /**
     * Worker {@code index} of the run {@code run}, on {@code ns} (its own I/O queue), with {@code buffer} for its
     * I/O and {@code prefillBuffer} for the prefill pass ({@code --verify} only, else null).
     */
    PerfWorker(RunContext run, int index, Namespace ns, IoBuffer buffer, IoBuffer prefillBuffer) {
        this.multipath = run.multipath();
        this.index = index;
        this.workers = run.workers();
        this.ns = ns;
        this.buffer = buffer;
        this.memory = buffer.segment();
        this.spec = run.spec();
        this.control = run.control();
        this.readLatency = run.readLatency();
        this.writeLatency = run.writeLatency();
        this.blockSize = Math.toIntExact(ns.blockSize());
        this.blocksPerIo = spec.ioSize() / blockSize;
        long totalUnits = run.regionBlocks() / blocksPerIo;
        this.units = totalUnits / workers;
        this.readPercent = spec.effectiveReadPercent();
        this.runId = run.runId();
        long seed = run.seed(index);
        this.rng = seed == 0 ? 0x2545_F491_4F6C_DD1DL : seed;
        int depth = spec.depth();
        this.submitNanos = new long[depth];
        this.slotRead = new boolean[depth];
        this.slotUnit = new long[depth];
        this.completions = new Completion[depth + PREFILL_DEPTH];
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new Completion(i);
        }
        if (multipath == null && blocksPerIo <= ns.maxBlocksPerRequest()) {
            IoCompletionHandler handler = (request, error) -> completed((int) request.userData(), error);
            this.requests = new IoRequest[depth];
            for (int i = 0; i < depth; i++) {
                requests[i] = new IoRequest(handler).userData(i);
            }
        } else {
            this.requests = null;
        }
        this.prefillBuffer = prefillBuffer;
        this.unitsPerPrefill = Math.max(1, prefillUnitBytes(spec.ioSize()) / spec.ioSize());
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

    /** Bytes of one prefill write for I/O size {@code ioSize}: whole units, about {@link #PREFILL_BYTES}. */
    static int prefillUnitBytes(int ioSize) {
        return Math.max(1, PREFILL_BYTES / ioSize) * ioSize;
    }

    private long slbaOf(long unit) {
        return ((long) index * units + unit) * blocksPerIo;
    }

    /** Starts the prefill pass (verify): every unit written once, sequentially; {@code done} counts down at the end. */
    synchronized void startPrefill(CountDownLatch done) {
        prefilling = true;
        cursor = 0;
        idle = done;
        for (int slot = 0; slot < PREFILL_DEPTH && cursor < units; slot++) {
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

    /** One large sequential write of whole units, every block stamped with generation 1. */
    private void issuePrefill(int slot) {
        long first = cursor;
        int n = (int) Math.min(unitsPerPrefill, units - first);
        cursor += n;
        prefillFirstUnit[slot] = first;
        prefillUnits[slot] = n;
        MemorySegment m = prefillBuffer.segment();
        long base = (long) slot * unitsPerPrefill * spec.ioSize();
        long slba = slbaOf(first);
        long blocks = (long) n * blocksPerIo;
        for (long b = 0; b < blocks; b++) {
            VerifyPattern.fill(m, base + b * blockSize, blockSize, slba + b, runId, 1);
        }
        for (int u = 0; u < n; u++) {
            generation[(int) (first + u)] = 1;
        }
        inFlight++;
        try {
            if (multipath != null) {
                multipath.submitWrite(slba, blocks, m.asSlice(base, blocks * blockSize),
                        completions[spec.depth() + slot]);
            } else {
                ns.submitWrite(slba, blocks, prefillBuffer, base, completions[spec.depth() + slot]);
            }
        } catch (RuntimeException e) {
            inFlight--;
            control.fail(e);
        }
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
        long slba = slbaOf(unit);
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
            if (requests != null) {
                IoRequest r = requests[slot];
                if (read) {
                    r.read(slba, blocksPerIo, buffer, offset);
                } else {
                    r.write(slba, blocksPerIo, buffer, offset);
                }
                ns.submit(r);
            } else if (multipath != null) {
                // several paths: the multipath layer's own callback form, which allocates per I/O
                MemorySegment data = memory.asSlice(offset, spec.ioSize());
                if (read) {
                    multipath.submitRead(slba, blocksPerIo, data, completions[slot]);
                } else {
                    multipath.submitWrite(slba, blocksPerIo, data, completions[slot]);
                }
            } else if (read) {
                ns.submitRead(slba, blocksPerIo, buffer, offset, completions[slot]);
            } else {
                ns.submitWrite(slba, blocksPerIo, buffer, offset, completions[slot]);
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
        if (slot >= spec.depth()) {
            prefillCompleted(slot - spec.depth(), error);
            return;
        }
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
            if (control.measuring()) {
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
                OutlierTrace outliers = control.outliers();
                if (outliers != null) {
                    outliers.record(submitNanos[slot], latency, read);
                }
            }
        }
        if (error == null && !control.stopped()) {
            issue(slot);
        }
        if (inFlight == 0 && idle != null && (control.stopped() || error != null)) {
            idle.countDown();
            idle = null;
        }
    }

    private void prefillCompleted(int slot, Throwable error) {
        inFlight--;
        if (error != null) {
            control.fail(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
        } else if (cursor < units && !control.stopped()) {
            issuePrefill(slot);
        }
        if (inFlight == 0 && idle != null) {
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
        long slba = slbaOf(unit);
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

    /** One per slot, made once: the library's callback form gets the same object every time (no future). */
    private final class Completion implements IoCallback {
        private final int slot;

        Completion(int slot) {
            this.slot = slot;
        }

        @Override
        public void completed(NvmfException error) {
            PerfWorker.this.completed(slot, error);
        }
    }
}
