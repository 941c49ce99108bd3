package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.log.AnaState;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One namespace of a {@link MultipathController}, reached over every path (Linux's {@code struct nvme_ns_head} and
 * its {@code nvme_ns_head_submit_bio()}): the I/O calls of {@link Namespace} (read, write, flush, write zeroes,
 * deallocate; future, callback and blocking forms), each sent down the path {@link MultipathController} chooses and, on a path error, down
 * another one with no error to the caller ({@code nvme_failover_req()}). Data is given as any
 * {@link MemorySegment} and staged through the chosen path's bounce buffers (a registered {@link IoBuffer} belongs
 * to one controller, so zero copy does not follow an I/O to another path).
 *
 * <p>Path errors, as Linux's {@code nvme_is_path_error()} and {@code nvme_failover_req()}: any status of type Path
 * Related (sct 3h; 301h persistent loss, 302h inaccessible and 303h transition also mark the path and re-read its
 * ANA log), the connection lost under the command, a command timeout. Other statuses go to the caller as they are.
 * When no path is usable (all inaccessible or reconnecting) the I/O waits, re-tried every
 * {@value MultipathController#REQUEUE_MILLIS} ms ({@code nvme_requeue_work()}), until a path is usable, every
 * path's controller is gone ({@code nvme_available_path()} false), or the no-path timeout has passed: then it fails.
 */
public final class MultipathNamespace implements NamespaceIo {

    private final MultipathController owner;
    private final Namespace first;
    private final Namespace[] paths;
    private final AtomicReferenceArray<AnaState> ana;
    private final AtomicLongArray submitted;

    MultipathNamespace(MultipathController owner, Namespace first, Namespace[] paths) {
        this.owner = owner;
        this.first = first;
        this.paths = paths;
        this.ana = new AtomicReferenceArray<>(paths.length);
        this.submitted = new AtomicLongArray(paths.length);
    }

    @Override
    public long nsid() {
        return first.nsid();
    }

    @Override
    public long blockSize() {
        return first.blockSize();
    }

    public long blockCount() {
        return first.blockCount();
    }

    @Override
    public long capacityBytes() {
        return first.capacityBytes();
    }

    /** The Identify Namespace data read through the first path at connect time. */
    @Override
    public IdentifyNamespace identify() {
        return first.identify();
    }

    public MultipathController controller() {
        return owner;
    }

    Namespace path(int index) {
        return paths[index];
    }

    AnaState anaState(int path) {
        return ana.get(path);
    }

    void anaState(int path, AnaState state) {
        ana.set(path, state);
    }

    long submitted(int path) {
        return submitted.get(path);
    }

    // ---- asynchronous -----------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> readAsync(long slba, long blocks, MemorySegment destination) {
        return start(OperationRequest.Kind.READ, slba, blocks, destination, false, null);
    }

    @Override
    public CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment source) {
        return start(OperationRequest.Kind.WRITE, slba, blocks, source, false, null);
    }

    public CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment source, boolean fua) {
        return start(OperationRequest.Kind.WRITE, slba, blocks, source, fua, null);
    }

    @Override
    public CompletableFuture<Void> flushAsync() {
        return start(OperationRequest.Kind.FLUSH, 0, 0, null, false, null);
    }

    /** Write Zeroes over the range, with DEAC when {@code deallocate}. */
    @Override
    public CompletableFuture<Void> writeZeroesAsync(long slba, long blocks, boolean deallocate) {
        return start(OperationRequest.Kind.WRITE_ZEROES, slba, blocks, null, deallocate, null);
    }

    /** Dataset Management Deallocate over the range. */
    @Override
    public CompletableFuture<Void> deallocateAsync(long slba, long blocks) {
        return start(OperationRequest.Kind.DATASET_MANAGEMENT, slba, blocks, null, false, null);
    }

    /** Callback form of a read: {@code callback} runs once the read completed on some path (or failed for good). */
    public void submitRead(long slba, long blocks, MemorySegment destination, IoCallback callback) {
        start(OperationRequest.Kind.READ, slba, blocks, destination, false, callback);
    }

    /** Callback form of a write. */
    public void submitWrite(long slba, long blocks, MemorySegment source, IoCallback callback) {
        start(OperationRequest.Kind.WRITE, slba, blocks, source, false, callback);
    }

    // ---- blocking -------------------------------------------------------------------------------------------

    public void read(long slba, long blocks, MemorySegment destination) throws NvmfException {
        await(readAsync(slba, blocks, destination), "read");
    }

    public void write(long slba, long blocks, MemorySegment source) throws NvmfException {
        await(writeAsync(slba, blocks, source), "write");
    }

    public void flush() throws NvmfException {
        await(flushAsync(), "flush");
    }

    private void await(CompletableFuture<Void> future, String what) throws NvmfException {
        long bound = TimeUnit.NANOSECONDS.toMillis(owner.noPathTimeoutNanos())
                + first.controller().options().commandTimeout().toMillis() * 2 + 5000;
        Futures.await(future, bound, owner.subsystemNqn() + " nsid " + nsid() + " " + what);
    }

    private CompletableFuture<Void> start(OperationRequest.Kind kind, long slba, long blocks, MemorySegment segment,
            boolean fua, IoCallback callback) {
        if (kind != OperationRequest.Kind.FLUSH && blocks < 1) {
            throw new IllegalArgumentException("block count must be at least 1: " + blocks);
        }
        if (kind == OperationRequest.Kind.READ || kind == OperationRequest.Kind.WRITE) {
            if (segment.byteSize() < blocks * blockSize()) {
                throw new IllegalArgumentException(blocks + " blocks of " + blockSize() + " bytes need "
                        + blocks * blockSize() + " bytes; the segment has " + segment.byteSize());
            }
        }
        Io io = new Io(kind, slba, blocks, segment, fua, callback);
        io.attempt();
        return io.future;
    }

    /** The ANA state an ANA status reports (NVMe Base 2.0, Figure 104), or null for other path statuses. */
    static AnaState impliedState(Status status) {
        if (status.sct() != 3) {
            return null;
        }
        return switch (status.sc()) {
            case 0x01 -> AnaState.PERSISTENT_LOSS;
            case 0x02 -> AnaState.INACCESSIBLE;
            case 0x03 -> AnaState.CHANGE;
            default -> null;
        };
    }

    /** nvme_is_path_error() plus the host-side failures Linux completes with a host path error. */
    static boolean isPathError(NvmfException e) {
        if (e instanceof NvmfStatusException s) {
            return s.status().sct() == 3;
        }
        return e instanceof NvmfControllerLostException || e instanceof NvmfTimeoutException;
    }

    /** One caller I/O across its attempts (Linux's bio on the head's requeue list between attempts). */
    private final class Io implements IoCallback {

        final OperationRequest.Kind kind;
        final long slba;
        final long blocks;
        final MemorySegment segment;
        final boolean fua;
        final IoCallback callback;
        final CompletableFuture<Void> future;
        int path = -1;
        long waitingSince;
        NvmfException lastError;

        Io(OperationRequest.Kind kind, long slba, long blocks, MemorySegment segment, boolean fua,
                IoCallback callback) {
            this.kind = kind;
            this.slba = slba;
            this.blocks = blocks;
            this.segment = segment;
            this.fua = fua;
            this.callback = callback;
            this.future = callback == null ? new CompletableFuture<>() : null;
        }

        void attempt() {
            int p = owner.findPath(MultipathNamespace.this);
            if (p < 0) {
                waitForPath();
                return;
            }
            path = p;
            owner.active[p].incrementAndGet();
            submitted.incrementAndGet(p);
            try {
                paths[p].submitFailFast(kind, slba, blocks, segment, fua, this);
            } catch (RuntimeException e) {
                completed(new NvmfControllerLostException(paths[p].controller().name() + ": " + e.getMessage()));
            }
        }

        /** No usable path now: requeue, bounded by the no-path timeout and nvme_available_path(). */
        private void waitForPath() {
            long now = System.nanoTime();
            if (waitingSince == 0) {
                waitingSince = now;
            }
            if (!owner.availablePath() || now - waitingSince >= owner.noPathTimeoutNanos()) {
                String why = owner.availablePath() ? "no usable path within "
                        + TimeUnit.NANOSECONDS.toMillis(owner.noPathTimeoutNanos()) + " ms" : "every path is gone";
                finish(new NvmfException(owner.subsystemNqn() + " nsid " + nsid() + ": " + why + " ("
                        + owner + ")" + (lastError == null ? "" : "; last error: " + lastError.getMessage()),
                        lastError));
                return;
            }
            try {
                owner.requeue.schedule(this::attempt, MultipathController.REQUEUE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                finish(new NvmfControllerLostException(owner.subsystemNqn() + ": multipath controller closed"));
            }
        }

        /** An attempt ended (on the path's completion thread, or inline when refused). */
        @Override
        public void completed(NvmfException error) {
            int p = path;
            owner.active[p].decrementAndGet();
            if (error == null || !isPathError(error)) {
                finish(error);
                return;
            }
            lastError = error;
            if (error instanceof NvmfStatusException s) {
                AnaState implied = impliedState(s.status());
                if (implied != null) {
                    owner.anaError(p, MultipathNamespace.this, implied);
                }
            }
            if (waitingSince != 0 && System.nanoTime() - waitingSince >= owner.noPathTimeoutNanos()) {
                finish(error);
                return;
            }
            if (waitingSince == 0) {
                waitingSince = System.nanoTime(); // the no-path clock starts at the first path error
            }
            try {
                owner.requeue.execute(this::attempt); // nvme_failover_req() -> kblockd requeue_work
            } catch (java.util.concurrent.RejectedExecutionException e) {
                finish(error);
            }
        }

        private void finish(NvmfException error) {
            if (callback != null) {
                callback.completed(error);
            } else if (error == null) {
                future.complete(null);
            } else {
                future.completeExceptionally(error);
            }
        }
    }

    @Override
    public String toString() {
        return "nsid " + nsid() + " (" + blockCount() + " blocks of " + blockSize() + " bytes) over "
                + paths.length + " paths";
    }
}
