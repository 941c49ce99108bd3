package io.nvmf4j.cli.perf;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.initiator.MultipathNamespace;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@link PerfSpec} against a connected controller: optional prefill for {@code --verify}, ramp, measured
 * window, drain; prints a progress line each second; returns the numbers. The caller's thread wakes once a second
 * for the progress line; the I/O runs on the queues' completion threads ({@link PerfWorker}), or, with fewer CPUs
 * (or {@code --threads}) than queues, on {@link QueuePollers} that poll several queues each.
 */
public final class PerfRun {

    private final NvmeController controller;
    private final Namespace namespace;
    /** Several paths: every worker's I/O goes through this handle (null: the one controller's queues). */
    private MultipathNamespace multipath;
    private final PerfSpec spec;
    private final MeterRegistry registry;
    private final ProgressLine progress;
    private final String label;
    private final boolean publishHistogram;
    private CpuWindow window;
    private OutlierTrace outliers;
    /** Threads that poll the queues ({@code perf --threads}); 0: one per CPU perf may use, at most one per queue. */
    private int pollThreads;

    public PerfRun(NvmeController controller, Namespace namespace, PerfSpec spec, MeterRegistry registry,
            PrintWriter progressOut, String label, boolean publishHistogram) {
        this.controller = controller;
        this.namespace = namespace;
        this.spec = spec;
        this.registry = registry;
        this.progress = new ProgressLine(progressOut);
        this.label = label;
        this.publishHistogram = publishHistogram;
    }

    /** Runs over several paths: the workers' I/O goes through {@code ns} (the controller gives the buffers). */
    public PerfRun multipath(MultipathNamespace ns) {
        this.multipath = ns;
        return this;
    }

    /** Keeps the measured window's I/Os slower than the trace's threshold ({@code perf --trace-outliers}). */
    PerfRun outliers(OutlierTrace trace) {
        this.outliers = trace;
        return this;
    }

    /** Polls the queues from {@code threads} threads ({@code perf --threads}; 0: the default). */
    PerfRun pollThreads(int threads) {
        this.pollThreads = threads;
        return this;
    }

    /** Measures CPU (and collections) over the measured window only ({@code perf --cpu-of}). */
    public PerfRun cpuWindow(CpuWindow w) {
        this.window = w;
        return this;
    }

    public PerfResult run() throws NvmfException, InterruptedException {
        long blockSize = namespace.blockSize();
        if (spec.ioSize() % blockSize != 0) {
            throw new CommandFailure("perf: -o " + spec.ioSize() + " is not a multiple of the block size " + blockSize
                    + " of nsid " + namespace.nsid());
        }
        long regionBlocks = spec.regionBytes() == 0 ? namespace.blockCount()
                : Math.min(namespace.blockCount(), spec.regionBytes() / blockSize);
        int queues = Math.min(spec.queues(), controller.ioQueueCount());
        long unitsPerWorker = regionBlocks / (spec.ioSize() / blockSize) / queues;
        if (unitsPerWorker < 1) {
            throw new CommandFailure("perf: the region of " + regionBlocks * blockSize + " bytes holds no "
                    + spec.ioSize() + "-byte I/O per queue");
        }
        if (spec.verify() && unitsPerWorker > Integer.MAX_VALUE / 8) {
            throw new CommandFailure("perf --verify: the region is too large to track; limit it with --size");
        }
        RunControl control = new RunControl(outliers);
        String tagLabel = label;
        LatencyMeter readLatency = new LatencyMeter(registry, "read", label, publishHistogram);
        LatencyMeter writeLatency = new LatencyMeter(registry, "write", label, publishHistogram);
        RunContext run = new RunContext(spec, control, readLatency, writeLatency, queues, regionBlocks,
                new SecureRandom().nextLong(), multipath);
        List<PerfWorker> workers = new ArrayList<>();
        List<IoBuffer> buffers = new ArrayList<>();
        try {
            for (int q = 0; q < queues; q++) {
                IoBuffer buffer = controller.allocateBuffer((long) spec.depth() * spec.ioSize());
                buffers.add(buffer);
                IoBuffer prefill = null;
                if (spec.verify()) {
                    prefill = controller.allocateBuffer(
                            (long) PerfWorker.PREFILL_DEPTH * PerfWorker.prefillUnitBytes(spec.ioSize()));
                    buffers.add(prefill);
                }
                workers.add(new PerfWorker(run, q, namespace.onQueue(q), buffer, prefill));
            }
            registerCounters(registry, workers, tagLabel);
            // several paths: the multipath layer picks the queues, so each keeps its own completion thread
            int threads = multipath == null ? QueuePollers.defaultThreads(queues, pollThreads) : queues;
            try (QueuePollers _ = threads < queues ? QueuePollers.start(controller, queues, threads) : null) {
                if (spec.verify()) {
                    prefill(workers, control, blockSize);
                }
                return measure(workers, control, readLatency, writeLatency, queues, blockSize);
            }
        } finally {
            for (IoBuffer b : buffers) {
                b.close();
            }
        }
    }

    /**
     * The I/O and byte counters of a run, read from the workers when scraped. Every series carries a HELP text
     * (Prometheus text format 0.0.4: an empty HELP line says nothing to whoever reads the scrape).
     */
    static void registerCounters(MeterRegistry registry, List<PerfWorker> workers, String runLabel) {
        counter(registry, "nvmf4j.perf.ios", "I/Os perf completed, by operation", "read", workers,
                PerfWorker.READS, runLabel);
        counter(registry, "nvmf4j.perf.ios", "I/Os perf completed, by operation", "write", workers,
                PerfWorker.WRITES, runLabel);
        counter(registry, "nvmf4j.perf.bytes", "Bytes perf moved, by operation", "read", workers,
                PerfWorker.READ_BYTES, runLabel);
        counter(registry, "nvmf4j.perf.bytes", "Bytes perf moved, by operation", "write", workers,
                PerfWorker.WRITE_BYTES, runLabel);
    }

    private static void counter(MeterRegistry registry, String name, String help, String op,
            List<PerfWorker> workers, int slot, String runLabel) {
        // Read when scraped: the workers' own counters, no extra work per I/O.
        FunctionCounter.builder(name, workers, ws -> sum(ws, slot)).description(help).tag("op", op)
                .tag("run", runLabel).register(registry);
    }

    private void prefill(List<PerfWorker> workers, RunControl control, long blockSize)
            throws InterruptedException, NvmfException {
        control.phase(RunControl.PREFILL);
        CountDownLatch done = new CountDownLatch(workers.size());
        long units = 0;
        for (PerfWorker w : workers) {
            units += w.units();
        }
        long bytes = units * spec.ioSize();
        long start = System.nanoTime();
        for (PerfWorker w : workers) {
            w.startPrefill(done);
        }
        while (!done.await(1, TimeUnit.SECONDS)) {
            progress.update(String.format(Locale.ROOT, "perf [prefill] writing %d MiB of patterns for --verify, %.0f s",
                    bytes >> 20, (System.nanoTime() - start) / 1e9));
            if (control.failure() != null) {
                break;
            }
        }
        rethrow(control);
        progress.update(String.format(Locale.ROOT, "perf [prefill] wrote %d MiB of patterns in %.1f s", bytes >> 20,
                (System.nanoTime() - start) / 1e9));
        progress.done();
    }

    private PerfResult measure(List<PerfWorker> workers, RunControl control, LatencyMeter readLatency,
            LatencyMeter writeLatency, int queues, long blockSize) throws InterruptedException, NvmfException {
        long rampNanos = spec.ramp().toNanos();
        long windowNanos = spec.duration().toNanos();
        control.phase(rampNanos > 0 ? RunControl.RAMP : RunControl.MEASURE);
        CountDownLatch drained = new CountDownLatch(workers.size());
        long start = System.nanoTime();
        long measureStart = rampNanos > 0 ? start + rampNanos : start;
        long measureEnd = measureStart + windowNanos;
        if (rampNanos == 0 && window != null) {
            window.begin();
        }
        for (PerfWorker w : workers) {
            w.start(drained);
        }
        int seconds = (int) Math.ceil(windowNanos / 1e9);
        double[] series = new double[seconds];
        int filled = 0;
        long lastIos = 0;
        long lastBytes = 0;
        long lastLatency = 0;
        long lastTick = start;
        long tick = start;
        boolean measuring = rampNanos == 0;
        while (control.failure() == null) {
            long now = System.nanoTime();
            if (!measuring && now - measureStart >= 0) {
                control.phase(RunControl.MEASURE);
                if (window != null) {
                    window.begin();
                }
                measuring = true;
                lastTick = now;
                lastIos = 0;
                lastBytes = 0;
                lastLatency = 0;
            }
            if (measuring && now - measureEnd >= 0) {
                break;
            }
            tick += TimeUnit.SECONDS.toNanos(1);
            long wakeAt = Math.min(tick, measuring ? measureEnd : measureStart);
            long sleep = wakeAt - System.nanoTime();
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
            now = System.nanoTime();
            long ios = sum(workers, PerfWorker.READS) + sum(workers, PerfWorker.WRITES);
            long bytes = sum(workers, PerfWorker.READ_BYTES) + sum(workers, PerfWorker.WRITE_BYTES);
            long latency = sum(workers, PerfWorker.LATENCY_NANOS);
            double dt = (now - lastTick) / 1e9;
            if (measuring && dt > 0.05) {
                double iops = (ios - lastIos) / dt;
                if (filled < series.length) {
                    series[filled++] = iops;
                }
                progress.update(String.format(Locale.ROOT, "perf [%3d/%d s] %s: %,.0f IOPS, %.1f MiB/s, avg %.1f us",
                        Math.min(seconds, (int) Math.round((now - measureStart) / 1e9)), seconds,
                        spec.workload().label(), iops, (bytes - lastBytes) / dt / (1 << 20),
                        ios > lastIos ? (latency - lastLatency) / 1000.0 / (ios - lastIos) : 0.0));
                lastIos = ios;
                lastBytes = bytes;
                lastLatency = latency;
                lastTick = now;
            } else if (!measuring) {
                progress.update(String.format(Locale.ROOT, "perf [ramp %.0f/%.0f s] %s", (now - start) / 1e9,
                        rampNanos / 1e9, spec.workload().label()));
            }
        }
        long stoppedAt = System.nanoTime();
        control.phase(RunControl.STOP);
        if (window != null) {
            window.end();
        }
        for (PerfWorker w : workers) {
            w.releaseIfIdle();
        }
        long drainMillis = controller.options().commandTimeout().toMillis() + 5000;
        boolean drainedInTime = drained.await(drainMillis, TimeUnit.MILLISECONDS);
        progress.done();
        rethrow(control);
        if (!drainedInTime) {
            throw new CommandFailure("perf: I/O still in flight " + drainMillis + " ms after the end of the run");
        }
        double measured = Math.max(1e-9, (stoppedAt - measureStart) / 1e9);
        long reads = sum(workers, PerfWorker.READS);
        long writes = sum(workers, PerfWorker.WRITES);
        long readBytes = sum(workers, PerfWorker.READ_BYTES);
        long writeBytes = sum(workers, PerfWorker.WRITE_BYTES);
        long latencyNanos = sum(workers, PerfWorker.LATENCY_NANOS);
        PerfResult.OpResult read = PerfResult.OpResult.of(reads, readBytes, measured,
                reads > 0 ? readLatency.stats() : LatencyStats.EMPTY);
        PerfResult.OpResult write = PerfResult.OpResult.of(writes, writeBytes, measured,
                writes > 0 ? writeLatency.stats() : LatencyStats.EMPTY);
        long all = reads + writes;
        return new PerfResult(spec, label, queues, blockSize, measured, read, write, all / measured,
                (readBytes + writeBytes) / measured / (1024.0 * 1024.0), all > 0 ? latencyNanos / 1000.0 / all : 0,
                sum(workers, PerfWorker.VERIFIED_BLOCKS), java.util.Arrays.copyOf(series, filled));
    }

    /** The first failure of the run as the library reported it (an NVMe status, a lost controller ...). */
    private static void rethrow(RunControl control) throws NvmfException {
        Throwable t = control.failure();
        if (t == null) {
            return;
        }
        if (t instanceof VerifyException v) {
            throw new CommandFailure("perf --verify: " + v.getMessage(), v);
        }
        if (t instanceof NvmfException n) {
            throw n;
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        throw new NvmfException("perf I/O failed: " + t, t);
    }

    static long sum(List<PerfWorker> workers, int slot) {
        long s = 0;
        for (PerfWorker w : workers) {
            s += w.counters.get(slot);
        }
        return s;
    }
}
