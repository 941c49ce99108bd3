package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_comp_channel;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_cq;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_wc;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An {@code ibv_cq} with its own completion channel. {@link #poll} calls the provider's {@code poll_cq} through a
 * method handle bound to this CQ into a native {@code struct ibv_wc} array allocated once, then copies the fields
 * into the caller's reusable {@link WorkCompletion}s: no allocation per poll. {@link #await} spins a budget, then
 * arms the CQ ({@code req_notify_cq}), polls once more (a completion may have slipped in before the arming) and
 * sleeps in poll(2) on the channel's fd; {@code ibv_get_cq_event} consumes the event, acknowledged in batches
 * and always before {@code ibv_destroy_cq}.
 */
final class IbverbsCompletionQueue implements CompletionQueue {
    /** Most completions fetched by one poll_cq call. */
    private static final int BATCH = 64;
    /** Longest single sleep in poll(2), so that interrupts and close are seen promptly. */
    private static final int MAX_SLEEP_MILLIS = 100;
    private static final int ACK_BATCH = 16;

    private static final long WC_SIZE = ibv_wc.sizeof();
    private static final long WR_ID = ibv_wc.wr_id$offset();
    private static final long STATUS = ibv_wc.status$offset();
    private static final long OPCODE = ibv_wc.opcode$offset();
    private static final long VENDOR_ERR = ibv_wc.vendor_err$offset();
    private static final long BYTE_LEN = ibv_wc.byte_len$offset();
    private static final long INVALIDATED_RKEY = ibv_wc.invalidated_rkey$offset();
    private static final long QP_NUM = ibv_wc.qp_num$offset();
    /** IBV_WC_WR_FLUSH_ERR: the queue pair was already in the error state when the request came up. */
    private static final int WR_FLUSH_ERR = 5;
    private static final long WC_FLAGS = ibv_wc.wc_flags$offset();
    private static final int WC_WITH_INV = ibverbs_h.IBV_WC_WITH_INV();

    private final IbverbsDevice device;
    private final MemorySegment channel;
    private final MemorySegment cq;
    private final int capacity;
    private final int fd;
    private final MethodHandle pollCq;
    private final MethodHandle reqNotifyCq;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private final MemorySegment eventOut;
    private final MemorySegment eventContextOut;
    private final MemorySegment pollfd;
    private final MemorySegment callState;
    private final ReentrantLock lock = new ReentrantLock();
    private final LocalFlushes localFlushes = new LocalFlushes();
    private final DrainMarkers drainMarkers = new DrainMarkers();
    /** Completions a closing queue pair's drain wait polled before the application did (guarded by lock). */
    private final ArrayDeque<WorkCompletion> heldBack = new ArrayDeque<>();
    private final long spinNanos;
    private int unackedEvents;
    private volatile boolean overflowed;
    private volatile boolean closed;

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private IbverbsCompletionQueue(IbverbsDevice device, MemorySegment channel, MemorySegment cq, int capacity) {
        this.device = device;
        this.channel = channel.reinterpret(ibv_comp_channel.sizeof());
        this.cq = cq;
        this.capacity = capacity;
        this.fd = ibv_comp_channel.fd(this.channel);
        this.pollCq = ContextOps.bind(device.ops().pollCq, cq);
        this.reqNotifyCq = ContextOps.bind(device.ops().reqNotifyCq, cq);
        this.wcs = arena.allocate(WC_SIZE * BATCH, 8);
        this.eventOut = arena.allocate(ValueLayout.ADDRESS, 2);
        this.eventContextOut = eventOut.asSlice(ValueLayout.ADDRESS.byteSize());
        this.pollfd = arena.allocate(Native.POLLFD_SIZE, 4);
        this.callState = Native.newCallState(arena);
        this.spinNanos = device.config().spinNanos();
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static IbverbsCompletionQueue create(IbverbsDevice device, int entries) throws VerbsException {
        MemorySegment channel = Native.ibvCreateCompChannel(device.context());
        try {
            MemorySegment cq = Native.ibvCreateCq(device.context(), entries, channel);
            int granted = ibv_cq.cqe(cq.reinterpret(ibv_cq.sizeof()));
            IbverbsCompletionQueue created = new IbverbsCompletionQueue(device, channel, cq, granted);
            device.events().addCq(created);
            return created;
        } catch (VerbsException | RuntimeException e) {
            ibverbs_h.ibv_destroy_comp_channel(channel);
            throw e;
        }
    }

    MemorySegment cq() {
        return cq;
    }

    IbverbsDevice device() {
        return device;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int poll(WorkCompletion[] out) {
        lock.lock();
        try {
            return pollLocked(out);
        } finally {
            lock.unlock();
        }
    }

    private int pollLocked(WorkCompletion[] out) {
        if (closed) {
            return 0;
        }
        if (!heldBack.isEmpty()) {
            // older than anything still in the device's CQ
            int n = 0;
            while (n < out.length && !heldBack.isEmpty()) {
                out[n++].copyFrom(heldBack.poll());
            }
            return n;
        }
        int wanted = Math.min(out.length, BATCH);
        int n;
        try {
            n = (int) pollCq.invokeExact(wanted, wcs);
        } catch (Throwable t) {
            throw new IllegalStateException("poll_cq failed", t);
        }
        if (n < 0) {
            // poll_cq fails only when the CQ itself is broken, e.g. after an overrun
            overflowed = true;
            return 0;
        }
        if (drainMarkers.anyExpected()) {
            n = fillSkippingDrainMarkers(out, n);
        } else {
            for (int i = 0; i < n; i++) {
                fill(out[i], i * WC_SIZE);
            }
        }
        if (n < out.length && !localFlushes.isEmpty()) {
            // after the device's own completions: a device flush of an earlier request comes first
            n += localFlushes.drainInto(out, n);
        }
        return n;
    }

    /** Fills {@code out} with the {@code n} polled completions but the provider's drain markers; returns how many. */
    private int fillSkippingDrainMarkers(WorkCompletion[] out, int n) {
        int filled = 0;
        for (int i = 0; i < n; i++) {
            long base = i * WC_SIZE;
            if (!isDrainMarker(base)) {
                fill(out[filled++], base);
            }
        }
        return filled;
    }

    private boolean isDrainMarker(long base) {
        return drainMarkers.take(wcs.get(ValueLayout.JAVA_LONG, base + WR_ID),
                wcs.get(ValueLayout.JAVA_INT, base + STATUS), wcs.get(ValueLayout.JAVA_INT, base + QP_NUM));
    }

    /** The drain markers of the queue pairs whose send CQ this is ({@link IbverbsQueuePair#toError}). */
    DrainMarkers drainMarkers() {
        return drainMarkers;
    }

    /**
     * Waits until the drain marker of queue pair {@code qpNum} was reaped, by the application's poller or by this
     * wait, which polls the CQ itself when no one else holds it and keeps what it finds, in order, for the
     * application's next poll (their side effects, such as ending a connection on an error completion, happen now).
     * The closing thread may be the only one that would ever poll (it closes, then awaits its completions), so
     * waiting for somebody else to reap the marker is not enough.
     *
     * @return false when the time ran out, the CQ was closed, or the caller is inside a poll of this CQ
     */
    boolean awaitDrainMarker(int qpNum, long timeoutNanos) throws InterruptedException {
        if (lock.isHeldByCurrentThread()) {
            // a close from a disconnect listener that a poll of this CQ runs (fill): a nested poll would overwrite
            // the batch that poll is still reading, and no one else can reap the marker meanwhile
            return drainMarkers.takeArrival(qpNum);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (!drainMarkers.takeArrival(qpNum)) {
            if (closed || System.nanoTime() - deadline >= 0) {
                return false;
            }
            if (lock.tryLock()) {
                try {
                    holdBack();
                } finally {
                    lock.unlock();
                }
                if (drainMarkers.takeArrival(qpNum)) {
                    return true;
                }
            }
            Thread.sleep(1);
        }
        return true;
    }

    /** Moves what the device has completed into heldBack, dropping drain markers. Holds lock. */
    private void holdBack() {
        if (closed) {
            return;
        }
        int n;
        try {
            n = (int) pollCq.invokeExact(BATCH, wcs);
        } catch (Throwable t) {
            throw new IllegalStateException("poll_cq failed", t);
        }
        if (n < 0) {
            overflowed = true;
            return;
        }
        for (int i = 0; i < n; i++) {
            long base = i * WC_SIZE;
            if (!isDrainMarker(base)) {
                WorkCompletion completion = new WorkCompletion();
                fill(completion, base);
                heldBack.add(completion);
            }
        }
    }

    /**
     * Completes a request posted on a queue pair whose connection has ended with {@code IBV_WC_WR_FLUSH_ERR}, here,
     * without the device (see {@link LocalFlushes}). Called by posters holding their queue pair's lock: it does not
     * take this CQ's lock (a poller holding that may run disconnect listeners that post).
     */
    void flushLocally(long wrId, WcOpcode opcode, int qpNum) {
        localFlushes.add(wrId, opcode, qpNum);
    }

    private void fill(WorkCompletion completion, long base) {
        int status = wcs.get(ValueLayout.JAVA_INT, base + STATUS);
        int opcode = wcs.get(ValueLayout.JAVA_INT, base + OPCODE);
        WcOpcode mapped = WcOpcode.of(opcode);
        if (mapped == null) {
            // ibv_wc.opcode is undefined for error completions; receive-side values have bit 7 set
            mapped = (opcode & 0x80) != 0 ? WcOpcode.RECV : WcOpcode.SEND;
        }
        completion.set(wcs.get(ValueLayout.JAVA_LONG, base + WR_ID), WcStatus.of(status), mapped,
                wcs.get(ValueLayout.JAVA_INT, base + BYTE_LEN), wcs.get(ValueLayout.JAVA_INT, base + QP_NUM));
        if (status != 0) {
            completion.vendorError(wcs.get(ValueLayout.JAVA_INT, base + VENDOR_ERR));
            if (status != WR_FLUSH_ERR) {
                // The queue pair is in the error state now. An InfiniBand/RoCE QP that breaks does not tell the
                // CM, so without this the peer would never learn of the end (an iWARP device sends a Terminate and
                // closes the stream itself): end the connection like Linux ULPs do on a fatal completion.
                IbverbsConnection connection = device.connectionsByQp()
                        .get(wcs.get(ValueLayout.JAVA_INT, base + QP_NUM));
                if (connection != null) {
                    connection.onErrorCompletion(completion);
                }
            }
        } else if ((wcs.get(ValueLayout.JAVA_INT, base + WC_FLAGS) & WC_WITH_INV) != 0) {
            int rkey = wcs.get(ValueLayout.JAVA_INT, base + INVALIDATED_RKEY);
            completion.invalidated(rkey);
            IbverbsMemoryRegion region = device.keys().get(rkey);
            if (region != null) {
                region.markInvalidated();
            }
        }
    }

    @Override
    public int await(WorkCompletion[] out, long timeout, TimeUnit unit) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + unit.toNanos(timeout);
        int n = poll(out);
        if (n > 0 || timeout <= 0) {
            return n;
        }
        long spinUntil = spinNanos < 0 ? deadline : Math.min(deadline, start + spinNanos);
        while (System.nanoTime() - spinUntil < 0) {
            n = poll(out);
            if (n > 0) {
                return n;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            Thread.onSpinWait();
        }
        while (true) {
            lock.lock();
            try {
                if (closed) {
                    return 0;
                }
                n = armAndPoll(out);
                if (n > 0) {
                    return n;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return 0;
                }
                int sleep = (int) Math.min(MAX_SLEEP_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
                if (Native.pollIn(pollfd, callState, fd, sleep)) {
                    Native.ibvGetCqEvent(channel, eventOut, eventContextOut, callState);
                    if (++unackedEvents >= ACK_BATCH) {
                        ackEvents();
                    }
                }
                n = pollLocked(out);
                if (n > 0) {
                    return n;
                }
            } catch (VerbsException e) {
                throw new IllegalStateException("waiting on the completion channel of " + device.name() + " failed",
                        e);
            } finally {
                lock.unlock();
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /** Arms the CQ for the next completion, then polls to close the race with one that arrived meanwhile. */
    private int armAndPoll(WorkCompletion[] out) {
        int rc;
        try {
            rc = (int) reqNotifyCq.invokeExact(0);
        } catch (Throwable t) {
            throw new IllegalStateException("req_notify_cq failed", t);
        }
        if (rc != 0) {
            throw new IllegalStateException(VerbsErrors.exception("req_notify_cq", rc).getMessage());
        }
        return pollLocked(out);
    }

    private void ackEvents() {
        if (unackedEvents > 0) {
            ibverbs_h.ibv_ack_cq_events(cq, unackedEvents);
            unackedEvents = 0;
        }
    }

    /** The device reported an overrun ({@code IBV_EVENT_CQ_ERR}): completions were dropped. */
    void markOverflowed() {
        overflowed = true;
    }

    @Override
    public boolean overflowed() {
        return overflowed;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            device.events().removeCq(this);
            ackEvents();
            int rc = device.destroyWhenReleased(() -> ibverbs_h.ibv_destroy_cq(cq));
            ibverbs_h.ibv_destroy_comp_channel(channel);
            arena.close();
            device.resources().remove(this);
            if (rc != 0) {
                // EBUSY: a queue pair still uses it (destroy the queue pairs first)
                throw new IllegalStateException(VerbsErrors.exception("ibv_destroy_cq", rc).getMessage());
            }
        } finally {
            lock.unlock();
        }
    }
}
