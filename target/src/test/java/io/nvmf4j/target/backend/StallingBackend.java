package io.nvmf4j.target.backend;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend that blocks every call until {@link #release()} (at most {@link #maxStall}), like an NFS file whose
 * server went away: what a poll thread must never wait for. Its bytes live in a RAM backend. Every call made on a
 * poll-group thread is recorded, so a test can fail on it. It has no descriptor: a ring cannot run it, so every
 * operation goes to its workers, at most {@code limit} at a time.
 */
public final class StallingBackend implements AsyncBackend {

    private final RamBackend ram;
    private final Duration maxStall;
    private final BackendWorkers workers;
    private final CountDownLatch released = new CountDownLatch(1);
    public final AtomicInteger started = new AtomicInteger();
    public final AtomicInteger finished = new AtomicInteger();
    public final List<String> callsOnPollThreads = new CopyOnWriteArrayList<>();

    public StallingBackend(long bytes, Duration maxStall) {
        this(bytes, maxStall, 8);
    }

    public StallingBackend(long bytes, Duration maxStall, int limit) {
        this.ram = RamBackend.allocate(bytes, 512);
        this.maxStall = maxStall;
        this.workers = new BackendWorkers("stalling", limit, 2);
    }

    public void release() {
        released.countDown();
    }

    private void stall(String what) {
        String thread = Thread.currentThread().getName();
        if (thread.startsWith("nvmf4j-poll-group")) {
            callsOnPollThreads.add(what + " on " + thread);
        }
        started.incrementAndGet();
        try {
            released.await(maxStall.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public int descriptor() {
        return -1;
    }

    @Override
    public boolean directIo() {
        return false;
    }

    @Override
    public int fallocateMode(BackendOp op) {
        return -1;
    }

    @Override
    public int runBlocking(BackendOp op, long offset, long length, MemorySegment buffer) {
        stall("runBlocking " + op);
        try {
            switch (op) {
                case READ -> ram.read(offset / 512, buffer);
                case WRITE, WRITE_FUA -> ram.write(offset / 512, buffer, op == BackendOp.WRITE_FUA);
                case FLUSH -> ram.flush();
                case WRITE_ZEROES -> ram.writeZeroes(offset / 512, length / 512);
                case DEALLOCATE -> ram.deallocate(offset / 512, length / 512);
            }
        } catch (BackendException e) {
            return e.toResult();
        } finally {
            finished.incrementAndGet();
        }
        return op.movesData() ? (int) length : 0;
    }

    @Override
    public BackendWorkers workers() {
        return workers;
    }

    @Override
    public int blockSize() {
        return 512;
    }

    @Override
    public long sizeInBytes() {
        return ram.sizeInBytes();
    }

    @Override
    public void read(long lba, MemorySegment destination) throws BackendException {
        stall("read");
        ram.read(lba, destination);
    }

    @Override
    public void write(long lba, MemorySegment source, boolean forceUnitAccess) throws BackendException {
        stall("write");
        ram.write(lba, source, forceUnitAccess);
    }

    @Override
    public void flush() throws BackendException {
        stall("flush");
    }

    @Override
    public void writeZeroes(long lba, long blocks) throws BackendException {
        stall("writeZeroes");
        ram.writeZeroes(lba, blocks);
    }

    @Override
    public void deallocate(long lba, long blocks) throws BackendException {
        stall("deallocate");
        ram.deallocate(lba, blocks);
    }

    @Override
    public boolean volatileWriteCache() {
        return false;
    }

    @Override
    public String description() {
        return "stalling test backend";
    }

    @Override
    public void close() {
        release();
        workers.close();
        ram.close();
    }
}
