package io.nvmf4j.cli.mount.ublk;

import io.nvmf4j.uring.CompletionHandler;
import io.nvmf4j.uring.Errno;
import io.nvmf4j.uring.IoUring;
import io.nvmf4j.uring.IoUringException;
import io.nvmf4j.uring.SqeSize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One ublk queue, run by one thread from start to end (the driver takes a queue's commands only from the task that
 * sent its first FETCH_REQ): its own ring, its descriptors mapped read-only from {@code /dev/ublkcN}, a buffer of
 * {@code max_io_buf_bytes} per tag. It sends FETCH_REQ for every tag, says so through {@link #fetched()}, then
 * answers each request that arrives as a completion with COMMIT_AND_FETCH_REQ carrying the handler's result, the
 * loop of ublksrv's {@code ublksrv_process_io} and SPDK's {@code ublk_poll}.
 *
 * <p>A handler that answers later ends requests through {@link #complete}: on this thread when it polls its own
 * completions here ({@link BlockRequestHandler#poll}: the initiator's NVMe queue, claimed from its completion
 * thread), and the commit goes out on the next round; from another thread the tag goes on a lock-free stack. While
 * the handler holds requests the queue thread polls the handler, that stack and its ring for
 * {@link BlockRequestHandler#spinNanos()} before it sleeps ({@link BlockRequestHandler#beforeSleep} first: the
 * handler gives its polling back, or keeps it and has its backend {@link #wake} the thread, which then sleeps at
 * most as long as the handler said, through an {@code IORING_OP_TIMEOUT}). Only a thread that sleeps is woken,
 * through an eventfd whose read the queue keeps armed on its ring: written by a completion from another thread
 * when the stack was empty (no allocation, at most one write per burst, none while the queue polls), and by the
 * backend's {@link #wake} once per sleep the handler armed it for. Where the handler leaves its connection to this
 * thread ({@link BlockRequestHandler#waitDescriptor}), a one-shot poll on that socket in the same ring wakes the
 * thread when the answer arrives, with no other thread between (docs/ARCHITECTURE.md, "Watching the connection
 * itself"). The same eventfd ends the queue
 * ({@link #stop()}); it also ends when every tag's fetch has ended (UBLK_IO_RES_ABORT after STOP_DEV).
 */
final class UblkQueue implements Runnable, CompletionHandler, BlockRequestHandler.RequestCompletion {
    private static final long WAKE = -1L;
    /** The user data of the timeout that bounds a sleep while the handler keeps its backend's polling. */
    private static final long TICK = -2L;
    /** The user data of the cancellation of a watch on a connection that is no longer the handler's. */
    private static final long CANCEL = -3L;
    /** A watch's user data is this minus its number: each watch told apart from the one it replaced. */
    private static final long WATCH_BASE = -16L;
    private static final int EMPTY = -1;
    /** After this long polling without anything, each empty poll yields the core. */
    private static final long YIELD_AFTER_NANOS = 10_000;

    private final int charFd;
    private final int queueId;
    private final int depth;
    private final int bufferBytes;
    private final BlockRequestHandler handler;
    /** Each tag's buffer, sliced once: no slice per request. */
    private final MemorySegment[] tagBuffers;
    private final int wakeFd;
    private final MemorySegment one;
    /** Tags ended by other threads: a Treiber stack threaded through {@link #next}, {@link #EMPTY} at the bottom. */
    private final AtomicInteger ready = new AtomicInteger(EMPTY);
    /** Requests the handler holds: started, not yet ended. The eventfd stays open while any are. */
    private final AtomicInteger held = new AtomicInteger();
    private final int[] next;
    private final int[] results;
    private final long spinNanos;
    /** Set by the queue thread before it re-checks the stack and sleeps: a completer then writes the eventfd. */
    private volatile boolean sleeping;
    private volatile boolean stopRequested;
    private volatile Thread owner;
    private final CompletableFuture<Void> fetched = new CompletableFuture<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private IoUring ring;
    private MemorySegment descriptors;
    private MemorySegment command;
    private MemorySegment wakeValue;
    private MemorySegment tickTime;
    /** A TICK timeout is in the ring: the next bounded sleep needs no other. */
    private boolean tickPending;
    /**
     * The handler's connection this ring watches for readability ({@link BlockRequestHandler#waitDescriptor}), while
     * a one-shot POLL_ADD on it is in the ring ({@code watchUserData}); -1 when none is.
     */
    private int watchFd = -1;
    private long watchUserData;
    private long watches;
    private long socketWakes;
    private boolean stopping;
    private int live;
    private long served;
    /** How the queue spent its time, for {@link #counters()}: written by the queue thread only. */
    private long sleeps;
    private long sleepsKept;
    private long ticks;
    /**
     * Bounded sleeps with requests out that lasted the whole bound: no wake-up came for that long (a bound that
     * expires sooner is a tick armed by an earlier sleep, firing into an ordinary one); and the longest sleep with
     * requests out, bounded or not.
     */
    private long heldSleepsWholeBound;
    private long longestHeldSleepNanos;
    private long spinsExpired;
    private long endedOnThread;
    private long endedElsewhere;

    /**
     * @param buffers {@code depth * bufferBytes} of memory any thread may touch (a shared arena's): tag t's buffer is
     *                at {@code t * bufferBytes}
     * @param one     8 bytes holding the long 1, what {@link #complete} writes to the eventfd
     */
    UblkQueue(int charFd, int queueId, int depth, int bufferBytes, MemorySegment buffers, MemorySegment one,
            BlockRequestHandler handler) throws UblkException {
        this.charFd = charFd;
        this.queueId = queueId;
        this.depth = depth;
        this.bufferBytes = bufferBytes;
        this.one = one;
        this.handler = handler;
        this.spinNanos = handler.spinNanos();
        this.next = new int[depth];
        this.results = new int[depth];
        this.tagBuffers = new MemorySegment[depth];
        for (int t = 0; t < depth; t++) {
            tagBuffers[t] = buffers.asSlice((long) t * bufferBytes, bufferBytes);
        }
        this.wakeFd = UblkLinux.eventfd();
    }

    /** Completes once every tag's FETCH_REQ is with the driver (then START_DEV can end), or with what failed. */
    CompletableFuture<Void> fetched() {
        return fetched;
    }

    /** Completes when the thread has ended and released the ring, the mapping and the buffers. */
    CompletableFuture<Void> ended() {
        return ended;
    }

    /** Requests served so far (read by other threads for a summary; approximate while running). */
    long served() {
        return served;
    }

    /**
     * Where requests ended and how often the thread slept: "served S, ended on this thread T / through the stack
     * E, slept N (K keeping the handler's polling), B bounds expired, H bounded sleeps with requests out lasted the
     * whole bound, the longest sleep with requests out L ms, spins expired X, watched the connection W times, woken
     * by it S" (read by other threads for
     * {@code nvmf4j.ublk.counters}; approximate while running).
     */
    String counters() {
        return "served " + served + ", ended on the queue thread " + endedOnThread + " / through the stack "
                + endedElsewhere + ", slept " + sleeps + " (" + sleepsKept + " keeping the handler's polling), "
                + ticks + " bounds expired, " + heldSleepsWholeBound
                + " bounded sleeps with requests out lasted the whole bound, the longest sleep with requests out "
                + longestHeldSleepNanos / 1_000_000
                + " ms, spins expired " + spinsExpired + ", watched the connection " + watches + " times, woken by it "
                + socketWakes;
    }

    /** Closes what the constructor opened, for a queue whose thread never started (its handler refused it). */
    void discard() {
        UblkLinux.close(wakeFd);
    }

    /** Wakes the queue thread and ends it (any thread). */
    void stop() {
        stopRequested = true;
        UblkLinux.signal(wakeFd, one);
    }

    /** Whether the handler holds no request of this queue (so its buffers may be freed). */
    boolean idle() {
        return held.get() == 0;
    }

    /** Ends request {@code tag} with {@code result}: from the queue's thread at once, else through the stack. */
    @Override
    public void complete(int tag, int result) {
        if (Thread.currentThread() == owner) {
            held.decrementAndGet();
            endedOnThread++;
            commit(tag, result);
            return;
        }
        results[tag] = result;
        int head;
        do {
            head = ready.get();
            next[tag] = head;
        } while (!ready.compareAndSet(head, tag)); // the CAS publishes results[tag] and next[tag]
        // Dekker with run(): it sets sleeping, then reads the stack; we push, then read sleeping (all volatile)
        if (head == EMPTY && sleeping) {
            UblkLinux.signal(wakeFd, one);
        }
        held.decrementAndGet(); // last: the queue closes the eventfd only once nothing is held
    }

    @Override
    public void run() {
        long pageSize = UblkLinux.pageSize();
        owner = Thread.currentThread();
        try (Arena arena = Arena.ofConfined()) {
            descriptors = UblkLinux.mapReadOnly(arena, charFd, IoDescriptor.mapOffset(queueId, pageSize),
                    IoDescriptor.mapLength(depth, pageSize));
            command = arena.allocate(IoCommand.SIZE, 8);
            wakeValue = arena.allocate(8, 8);
            tickTime = arena.allocate(16, 8);
            try (IoUring r = IoUring.open(Integer.highestOneBit(2 * depth + 1), SqeSize.SQE128)) {
                ring = r;
                for (int tag = 0; tag < depth; tag++) {
                    send(UblkCommands.U_IO_FETCH_REQ, tag, 0);
                }
                ring.prepareRead(wakeFd, wakeValue, 0, WAKE);
                ring.submit();
                live = depth;
                // a FETCH the driver refuses ends at once: its CQE is there now, before anyone waits on START_DEV
                ring.reap(this);
                if (live < depth) {
                    throw new UblkException("FETCH_REQ on queue " + queueId, Errno.EINVAL);
                }
                fetched.complete(null);
                while (live > 0 && !stopping) {
                    if (ring.prepared() > 0) {
                        ring.submit(); // the commits of the last round: the kernel ends those requests now
                    }
                    if (round() > 0 || (held.get() > 0 && spin())) {
                        continue;
                    }
                    boolean requestsOut = held.get() > 0;
                    long bound = handler.beforeSleep(queueId, requestsOut);
                    sleeping = true;
                    if (ready.get() == EMPTY) {
                        sleeps++;
                        if (bound > 0) {
                            sleepsKept++;
                        }
                        if (bound > 0 && !tickPending) {
                            tickPending = ring.prepareTimeout(tickTime, bound, TICK);
                        }
                        watch(bound > 0 ? handler.waitDescriptor(queueId) : -1);
                        long start = System.nanoTime();
                        ring.submitAndWait(1);
                        if (requestsOut) {
                            heldSlept(System.nanoTime() - start, bound);
                        }
                    }
                    sleeping = false;
                }
            }
        } catch (UblkException e) {
            fetched.completeExceptionally(e);
        } catch (IoUringException e) {
            fetched.completeExceptionally(new UblkException("queue " + queueId + " io_uring (" + e.getMessage()
                    + ")", e.errno()));
        } catch (RuntimeException | Error e) {
            fetched.completeExceptionally(e);
            ended.completeExceptionally(e);
            throw e;
        } finally {
            handler.stopped(queueId); // whatever poll() took over goes back before this thread ends
            if (held.get() == 0) {
                UblkLinux.close(wakeFd);
            } else {
                // a request the handler still holds will signal it when it ends: keep the descriptor open (a
                // closed number could be reused by another file by then) rather than risk that write
                System.getLogger(UblkQueue.class.getName()).log(System.Logger.Level.WARNING,
                        "ublk queue {0} ended with {1} request(s) still held by the handler", queueId, held.get());
            }
            ended.complete(null);
        }
    }

    /**
     * Has the ring wake this thread when {@code fd} (the handler's connection, which no other thread reads while
     * this one sleeps) becomes readable: one POLL_ADD, which stays in the ring across sleeps until it fires; one on
     * a connection the handler no longer names is cancelled, so that the ring lets that socket's file go.
     */
    private void watch(int fd) {
        if (watchFd == fd) {
            return; // armed by an earlier sleep, or nothing to watch and nothing watched
        }
        if (watchFd >= 0) {
            if (!ring.prepareCancel(watchUserData, CANCEL)) {
                return; // SQ full: the watch stays; the handler's wake and the tick still end this sleep
            }
            watchFd = -1;
        }
        if (fd >= 0) {
            long userData = WATCH_BASE - ++watches;
            if (ring.preparePollAdd(fd, IoUring.POLLIN, userData)) {
                watchFd = fd;
                watchUserData = userData;
            }
        }
    }

    private void heldSlept(long nanos, long bound) {
        longestHeldSleepNanos = Math.max(longestHeldSleepNanos, nanos);
        if (bound > 0 && nanos >= bound) {
            heldSleepsWholeBound++;
        }
    }

    /** Handles the ring's completions, the handler's own and the stack; returns how many there were. */
    private int round() {
        int n = ring.reap(this);
        if (n > 0) {
            handler.started(queueId); // the requests this reap started leave together
        }
        if (held.get() > 0) {
            n += handler.poll(queueId);
        }
        if (ready.get() != EMPTY) {
            drainReady();
            n++;
        }
        return n;
    }

    /**
     * Submits what is prepared, then polls the stack and the ring (a memory read each; an enter only when the
     * kernel has task work for the ring, COOP_TASKRUN) for up to {@link #spinNanos}: whether anything came.
     */
    @SuppressWarnings("ThreadPriorityCheck") // a bounded back-off while polling, not a priority
    private boolean spin() throws IoUringException {
        if (spinNanos <= 0) {
            return false;
        }
        if (ring.prepared() > 0) {
            ring.submit();
        }
        long start = System.nanoTime();
        long until = start + spinNanos;
        long now = start;
        do {
            if (now - start >= YIELD_AFTER_NANOS) {
                Thread.yield(); // the completer may want this core (2 vCPUs): as the initiator's poller does
            } else {
                Thread.onSpinWait();
            }
            if (ring.needsEnter()) {
                ring.submit();
            }
            if (round() > 0) {
                return true;
            }
            now = System.nanoTime();
        } while (now - until < 0 && !stopRequested);
        spinsExpired++;
        return false;
    }

    /** Commits every tag that other threads ended. */
    private void drainReady() {
        int tag = ready.getAndSet(EMPTY);
        while (tag != EMPTY) {
            int after = next[tag];
            endedElsewhere++;
            commit(tag, results[tag]);
            tag = after;
        }
    }

    /** The handler's backend has answers to poll: the eventfd's write ends a sleep (or the next one at once). */
    @Override
    public void wake() {
        UblkLinux.signal(wakeFd, one);
    }

    @Override
    public void completed(long userData, int result, int flags) {
        if (userData <= WATCH_BASE || userData == CANCEL) {
            if (userData == watchUserData && watchFd >= 0) {
                watchFd = -1; // fired (the round after it reads the connection) or cancelled: arm anew
                if (result > 0) {
                    socketWakes++;
                }
            }
            return;
        }
        if (userData == TICK) {
            tickPending = false; // the round after it polls the handler: its timeouts are checked there
            ticks++;
            return;
        }
        if (userData == WAKE) {
            if (stopRequested) {
                stopping = true;
                return;
            }
            drainReady();
            ring.prepareRead(wakeFd, wakeValue, 0, WAKE); // armed again: the next burst's write wakes us
            return;
        }
        int tag = (int) userData;
        if (result != UblkCommands.IO_RES_OK) {
            live--; // UBLK_IO_RES_ABORT: the device is stopping; anything else: the driver refused the command
            return;
        }
        MemorySegment d = IoDescriptor.of(descriptors, tag);
        int op = IoDescriptor.op(d);
        long length = IoDescriptor.sectors(d) << 9;
        if (length > bufferBytes && (op == IoDescriptor.OP_READ || op == IoDescriptor.OP_WRITE)) {
            commit(tag, -Errno.EIO); // EIO: larger than max_io_buf_bytes, which the driver never sends
            return;
        }
        held.incrementAndGet();
        handler.start(queueId, tag, op, IoDescriptor.flags(d), IoDescriptor.startSector(d) << 9, length,
                tagBuffers[tag], this);
    }

    private void commit(int tag, int result) {
        served++;
        send(UblkCommands.U_IO_COMMIT_AND_FETCH_REQ, tag, result);
    }

    private void send(int op, int tag, int result) {
        IoCommand.write(command, queueId, tag, result, tagBuffers[tag].address());
        if (!ring.prepareUringCmd(charFd, op, command, tag)) {
            // the ring holds two entries per tag: at most one command per tag and the stop read are outstanding
            throw new IllegalStateException("queue " + queueId + ": ring full");
        }
    }
}
