package io.nvmf4j.target.backend;

import io.nvmf4j.uring.CompletionHandler;
import io.nvmf4j.uring.IoUringException;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The asynchronous backend I/O of one poll-group thread: the handler submits, the backend completes later, and the
 * poll loop hears of it through {@link #poll()} on the same thread (SPDK's bdev layer with its uring or aio bdev,
 * reaped by the reactor's poller; nvmet submits bios or kiocbs and completes them from their end_io). One per
 * poll group; everything but {@link #workerDone} runs on its owning thread.
 *
 * <p>In {@link BackendIoMode#URING} mode reads, writes (FUA as {@code RWF_DSYNC}), flushes ({@code fdatasync}) and
 * fallocates go on this group's io_uring, several per {@code io_uring_enter} (one per {@link #poll()} round); each
 * backend's descriptor goes into the ring's registered file table on its first operation here (a fixed file: no
 * file lookup and reference count per I/O), and leaves it in {@link #expire}'s round once the backend is closed; a
 * buffer inside memory registered with {@link #registerBuffers} goes as a fixed buffer (no pinning per I/O), one
 * that O_DIRECT cannot take (in-capsule data right after its 64-byte SQE) through a per-slot bounce buffer. What
 * the ring has no opcode for, what it refuses (EINVAL of O_DIRECT, EOPNOTSUPP of fallocate) and short transfers
 * go to the namespace's {@link BackendWorkers}, whose synchronous code has the fallbacks. In
 * {@link BackendIoMode#THREADS} mode everything goes to the workers. RAM namespaces' transfers larger than one
 * piece are no storage I/O but copies on this thread: {@link #copy} moves them a piece per round
 * ({@link MemoryCopies}), in either mode. The ring's side (SQEs, fixed files and buffers, bounces) is
 * {@link BackendRing}; this class keeps the slots, the bounds and what each end means.
 *
 * <p>Bounds: each namespace has at most {@link BackendWorkers#limit()} operations in flight; more wait here, in
 * order, and a namespace at its limit holds up only its own. While a namespace is being read its writes in flight
 * are kept small ({@link ReadLatencyGuard}), so that a read does not queue in the device behind megabytes of them:
 * a larger write then goes in pieces of {@link ReadLatencyGuard#PIECE_BYTES}, one after the other, and its caller
 * hears of it once, when the last piece ended (or the first that failed).
 * An operation older than the timeout given to {@link #expire} is answered {@code -ETIMEDOUT} and abandoned: its
 * slot (and, through {@link BackendCompletion#backendAbandoned()}, the caller's buffer) stays held until the kernel
 * or the worker really lets go of it.
 */
public final class BackendIo implements AutoCloseable, CompletionHandler {

    private static final System.Logger LOG = System.getLogger(BackendIo.class.getName());

    private final BackendIoMode mode;
    /** The io_uring side, null in {@link BackendIoMode#THREADS} mode. */
    private final BackendRing ring;
    private final String name;
    /** RAM namespaces' transfers larger than one piece, moved a piece per {@link #poll()} round. */
    private final MemoryCopies copies;
    private BackendSlot[] slots = new BackendSlot[0];
    private int slotCount;
    private BackendSlot free;
    private BackendSlot waitHead;
    private BackendSlot waitTail;
    /** Slots workers have finished, pushed from their threads (a Treiber stack; the poll thread takes it whole). */
    private final AtomicReference<BackendSlot> workerDoneStack = new AtomicReference<>();
    private int inFlight;
    private int waiting;
    private boolean released;
    /** A write waits for its namespace's {@link ReadLatencyGuard}: the waiting list is tried every round. */
    private boolean guardHeld;
    private long writePieces;
    private boolean closed;

    private BackendIo(BackendIoMode mode, BackendRing ring, String name) {
        this.mode = mode;
        this.ring = ring;
        this.name = name;
        this.copies = new MemoryCopies(name);
    }

    /**
     * An engine in {@code mode} (already {@linkplain BackendIoMode#resolve() resolved}: URING or THREADS) with a ring
     * of {@code ringEntries} submission entries.
     */
    public static BackendIo open(BackendIoMode mode, int ringEntries, String name) throws IoUringException {
        if (mode == BackendIoMode.AUTO) {
            throw new IllegalArgumentException("resolve the backend I/O mode first");
        }
        BackendRing ring = mode == BackendIoMode.URING ? BackendRing.open(ringEntries, name) : null;
        return new BackendIo(mode, ring, name);
    }

    /** Backends whose descriptor is in the ring's registered file table now. */
    public int registeredFiles() {
        return ring == null ? 0 : ring.registeredFiles();
    }

    public BackendIoMode mode() {
        return mode;
    }

    /**
     * Registers memory the data buffers come from (the poll group's pool) with the ring, so reads and writes into
     * it go as fixed buffers; the first bounce buffers are registered with it. Best effort: a kernel or
     * RLIMIT_MEMLOCK that refuses leaves plain reads and writes, said once in the log.
     */
    public void registerBuffers(MemorySegment... memory) {
        if (ring != null) {
            ring.registerBuffers(memory);
        }
    }

    /**
     * Operations submitted and not ended (waiting, on the ring, on a worker, or abandoned but not yet let go), and
     * RAM transfers not yet copied to their end.
     */
    public int inFlight() {
        return inFlight + copies.pending();
    }

    /** Pieces of split writes that ended with more of their write to go (a write in n pieces counts n - 1). */
    public long writePieces() {
        return writePieces;
    }

    /** Operations waiting for room under their namespace's bound. */
    public int waiting() {
        return waiting;
    }

    /**
     * Starts {@code op}: {@code done} hears of its end from a later {@link #poll()} on this thread, never from inside
     * this call. {@code buffer} (data operations) must stay untouched by the caller until then.
     */
    public void submit(AsyncBackend backend, BackendOp op, long offset, long length, MemorySegment buffer,
                       BackendCompletion done) {
        if (closed) {
            throw new IllegalStateException(name + ": backend I/O is closed");
        }
        BackendSlot s = take();
        s.backend = backend;
        s.op = op;
        s.offset = offset;
        s.length = length;
        s.buffer = buffer;
        s.done = done;
        s.submitNanos = System.nanoTime();
        inFlight++;
        // a unit freed by an end goes to the waiters first (startWaiting in the same poll()), so trying at once
        // overtakes nobody of this namespace, and never waits behind another namespace at its bound
        if (!start(s)) {
            enqueueWaiting(s);
        }
    }

    /**
     * Starts a RAM namespace's {@code op} on {@code length} bytes at byte {@code offset} (a Read or Write of more
     * than {@link #copyPieceBytes()}, or a Write Zeroes or Deallocate): it is copied one piece per {@link #poll()}
     * round, so that other queues of the group wait behind a piece at most, and {@code done} hears of its end from
     * the round that copied the last piece.
     */
    public void copy(RamBackend backend, BackendOp op, long offset, long length, MemorySegment buffer,
                     BackendCompletion done) {
        if (closed) {
            throw new IllegalStateException(name + ": backend I/O is closed");
        }
        copies.submit(backend, op, offset, length, buffer, done);
    }

    /** The largest RAM transfer worth copying inline rather than through {@link #copy}: one round's piece. */
    public static long copyPieceBytes() {
        return MemoryCopies.PIECE_BYTES;
    }

    /**
     * One round for the poll loop: hands every finished operation to its completion, starts waiting ones that now
     * have room, submits everything prepared with one {@code io_uring_enter}, and copies one piece of a RAM
     * transfer. Returns how many operations ended, plus one when a piece was copied (the loop is busy).
     */
    public int poll() {
        if (inFlight == 0 && copies.pending() == 0 && (ring == null || !ring.needsEnter())) {
            return 0; // nothing can end: the poll loop of a RAM-only group pays three reads here
        }
        int n = copies.step();
        if (ring != null && ring.needsEnter()) {
            // what the last round prepared, and completion work the kernel left for this thread (COOP_TASKRUN)
            ring.submit();
        }
        if (ring != null) {
            n += ring.reap(this);
        }
        if (workerDoneStack.get() != null) {
            n += finishWorkerSlots(workerDoneStack.getAndSet(null));
        }
        if ((released || guardHeld) && waitHead != null) {
            guardHeld = false;
            startWaiting();
        }
        released = false;
        if (ring != null && ring.prepared() > 0) {
            ring.submit();
        }
        return n;
    }

    /** A worker finished {@code slot} (any thread). */
    void workerDone(BackendSlot slot) {
        BackendSlot head;
        do {
            head = workerDoneStack.get();
            slot.nextDone = head;
        } while (!workerDoneStack.compareAndSet(head, slot));
    }

    /** The ring's completions ({@link BackendRing#reap}). */
    @Override
    public void completed(long userData, int result, int flags) {
        if (userData == BackendRing.CANCEL_USER_DATA) {
            return;
        }
        int index = (int) userData;
        BackendSlot s = index >= 0 && index < slotCount ? slots[index] : null;
        if (s == null || s.state != BackendSlot.State.RING || s.generation != (int) (userData >>> 32)) {
            LOG.log(Level.WARNING, "{0}: io_uring completion for no operation (user data {1})", name, userData);
            return;
        }
        if (BackendRing.needsWorker(s, result)) {
            // the synchronous path has the fallbacks (buffered I/O, zeroes written, the rest of a short transfer)
            s.bounced = false;
            s.state = BackendSlot.State.WORKER;
            s.backend.workers().execute(s);
            return;
        }
        finish(s, result);
    }

    /**
     * Answers every operation submitted more than {@code timeoutNanos} ago with {@code -ETIMEDOUT} (after asking
     * the ring to cancel it); those already started stay held until they really end. Returns how many. Also lets
     * go of the registered files of backends closed since the last call (the poll group's housekeeping).
     */
    public int expire(long nowNanos, long timeoutNanos) {
        if (ring != null) {
            ring.releaseClosedFiles();
        }
        int n = 0;
        for (int i = 0; i < slotCount; i++) {
            BackendSlot s = slots[i];
            if (s.state == BackendSlot.State.FREE || s.abandoned || nowNanos - s.submitNanos <= timeoutNanos) {
                continue;
            }
            n++;
            BackendCompletion d = s.done;
            LOG.log(Level.WARNING, "{0}: {1} on {2} did not end within {3} ms; answering it as timed out", name,
                    s.op, s.backend.description(), timeoutNanos / 1_000_000);
            if (s.state == BackendSlot.State.WAITING) {
                removeWaiting(s);
                inFlight--;
                free(s);
            } else {
                s.abandoned = true;
                s.done = null;
                s.lateEnd = d.backendAbandoned();
                if (s.state == BackendSlot.State.RING) {
                    ring.cancel(s);
                }
            }
            d.backendCompleted(-LinuxCalls.ETIMEDOUT);
        }
        return n;
    }

    // ---- starting ----

    private boolean start(BackendSlot s) {
        BackendWorkers workers = s.backend.workers();
        ReadLatencyGuard guard = workers.guard();
        boolean write = s.op.writesData();
        long piece = s.length - s.written;
        if (write) {
            long now = System.nanoTime();
            if (piece > ReadLatencyGuard.PIECE_BYTES && guard.readsActive(now)
                    && DescriptorIo.aligned(s.buffer, s.backend.directIo())) {
                // a read is to wait behind one piece of this write at most, not behind all of it
                piece = ReadLatencyGuard.PIECE_BYTES;
            }
            if (!guard.tryStartWrite(piece, now)) {
                // no write of ours ends to wake the list when another poll group holds the budget: ask every round
                guardHeld = true;
                return false;
            }
        }
        if (!workers.tryAcquire()) {
            if (write) {
                guard.writeEnded(piece);
            }
            return false;
        }
        s.piece = piece;
        s.guardBytes = write ? piece : 0;
        if (s.op == BackendOp.READ) {
            guard.readStarted();
        }
        if (ring != null && BackendRing.runs(s) && ring.prepare(s)) {
            s.state = BackendSlot.State.RING;
            return true;
        }
        s.state = BackendSlot.State.WORKER;
        workers.execute(s);
        return true;
    }

    // ---- ending ----

    private int finishWorkerSlots(BackendSlot stack) {
        // the stack is newest first: reverse it so operations end in the order the workers finished them
        BackendSlot ordered = null;
        while (stack != null) {
            BackendSlot next = stack.nextDone;
            stack.nextDone = ordered;
            ordered = stack;
            stack = next;
        }
        int n = 0;
        while (ordered != null) {
            BackendSlot next = ordered.nextDone;
            ordered.nextDone = null;
            finish(ordered, ordered.result);
            n++;
            ordered = next;
        }
        return n;
    }

    private void finish(BackendSlot s, int result) {
        BackendWorkers workers = s.backend.workers();
        workers.release();
        if (s.op == BackendOp.READ) {
            workers.guard().readEnded(System.nanoTime());
        } else if (s.op.writesData()) {
            workers.guard().writeEnded(s.guardBytes);
            s.guardBytes = 0;
        }
        released = true;
        if (!s.abandoned && s.op.writesData() && result == s.piece && s.morePieces()) {
            // the next piece goes first among the waiting, so the write keeps its place behind nothing but reads
            s.written += s.piece;
            s.bounced = false;
            writePieces++;
            enqueueWaitingFirst(s);
            return;
        }
        if (result >= 0 && s.written > 0) {
            result = (int) (s.written + result); // the caller hears of the whole write
        }
        inFlight--;
        if (s.abandoned) {
            Runnable late = s.lateEnd;
            free(s);
            if (late != null) {
                try {
                    late.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, name + ": releasing an abandoned operation's memory failed", e);
                }
            }
            return;
        }
        if (result >= 0 && s.bounced && s.op == BackendOp.READ) {
            MemorySegment.copy(s.bounceView, 0, s.buffer, 0, s.length);
        }
        BackendCompletion d = s.done;
        free(s);
        try {
            d.backendCompleted(result);
        } catch (RuntimeException e) {
            // one caller's failure must not lose the other ends of this round
            LOG.log(Level.ERROR, name + ": a backend completion failed", e);
        }
    }

    // ---- slots and the waiting list ----

    private BackendSlot take() {
        BackendSlot s = free;
        if (s != null) {
            free = s.next;
            s.next = null;
            return s;
        }
        if (slotCount == slots.length) {
            slots = Arrays.copyOf(slots, Math.max(64, slots.length * 2));
        }
        s = new BackendSlot(this, slotCount);
        slots[slotCount++] = s;
        return s;
    }

    private void free(BackendSlot s) {
        s.clear();
        s.next = free;
        free = s;
    }

    private void enqueueWaiting(BackendSlot s) {
        s.state = BackendSlot.State.WAITING;
        s.next = null;
        if (waitTail == null) {
            waitHead = s;
        } else {
            waitTail.next = s;
        }
        waitTail = s;
        waiting++;
    }

    private void enqueueWaitingFirst(BackendSlot s) {
        s.state = BackendSlot.State.WAITING;
        s.next = waitHead;
        waitHead = s;
        if (waitTail == null) {
            waitTail = s;
        }
        waiting++;
    }

    private void removeWaiting(BackendSlot s) {
        BackendSlot prev = null;
        for (BackendSlot w = waitHead; w != null; prev = w, w = w.next) {
            if (w == s) {
                if (prev == null) {
                    waitHead = w.next;
                } else {
                    prev.next = w.next;
                }
                if (waitTail == w) {
                    waitTail = prev;
                }
                w.next = null;
                waiting--;
                return;
            }
        }
    }

    /** Starts, in order, every waiting operation whose namespace now has room (one at its limit holds up no other). */
    private void startWaiting() {
        BackendSlot prev = null;
        BackendSlot w = waitHead;
        while (w != null) {
            BackendSlot next = w.next;
            if (start(w)) {
                if (prev == null) {
                    waitHead = next;
                } else {
                    prev.next = next;
                }
                if (waitTail == w) {
                    waitTail = prev;
                }
                w.next = null;
                waiting--;
            } else {
                prev = w;
            }
            w = next;
        }
    }

    /**
     * Closes the ring (the kernel cancels and waits for what it still runs) and frees the bounce buffers. Call it
     * after {@link #inFlight()} reached 0, or after giving up on it: memory given to abandoned operations must stay
     * allocated until then.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ring != null) {
            ring.close(inFlight == 0);
        }
        if (inFlight != 0) {
            // a worker may still write into a bounce buffer: leave that memory to the garbage collector's view of
            // nothing (a shared arena cannot be closed under a thread using it); it is at most the slots' bounces
            LOG.log(Level.WARNING, "{0}: closed with {1} backend operation(s) still running", name, inFlight);
        }
    }

    @Override
    public String toString() {
        return name + " (" + mode.label() + ", " + inFlight + " in flight)";
    }
}
