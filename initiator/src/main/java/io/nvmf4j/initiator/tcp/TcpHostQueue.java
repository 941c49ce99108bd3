package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.HostQueue;
import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.initiator.NvmfControllerLostException;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.NvmfTimeoutException;
import io.nvmf4j.initiator.QueueFailureListener;
import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One NVMe queue over one TCP connection: the host half of the NVMe/TCP transport binding (NVMe/TCP 1.0a), as
 * Linux {@code drivers/nvme/host/tcp.c} ({@code struct nvme_tcp_queue}). {@link TcpConnection} sets the connection
 * up and sends PDUs; {@link PduReceiver} takes them apart on the queue's poller; {@link TcpPoller} is that poller
 * (spin for the budget on the non-blocking socket, then block), lent to a claimant that polls itself; this class
 * keeps the tags ({@link TcpRequestTable}), the waiting requests and the connection's life.
 *
 * <p>Data moves by copy between the request's memory and the connection's buffers, so any segment works and
 * nothing is registered: a write up to the in-capsule size goes in its CapsuleCmd
 * ({@code nvme_tcp_setup_cmd_pdu()}), a larger one waits for the controller's R2T and goes in H2CData PDUs of at
 * most MAXH2CDATA bytes; read data comes in C2HData PDUs placed straight into the request's memory.
 *
 * <p>Locks: {@code lock} guards the tags, the waiting list and the state; {@code sendLock} orders the PDUs on the
 * socket and is never held while taking {@code lock}. A command takes its tag under {@code lock} and is sent
 * after releasing it.
 */
final class TcpHostQueue implements HostQueue {

    enum State { DOWN, CONNECTING, LIVE, CLOSED }

    final String name;
    private final QueueId qid;
    private final int queueSize;
    private final int sqsize;
    private final int bufferSize;
    private final long timeoutNanos;
    final long spinNanos;
    private final boolean headerDigest;
    private final boolean dataDigest;
    private final QueueFailureListener failureListener;
    private final Arena arena = Arena.ofShared();

    private final Object lock = new Object();
    private final Object sendLock = new Object();
    private final TcpRequestTable requests;
    private final ArrayDeque<NvmeRequest> pending;
    /** Started after a completion, sent after the lock: the poller's alone (or its claimant's). */
    private final TcpSlot[] startedScratch;
    private volatile State state = State.DOWN;
    private volatile int generation;
    private volatile TcpConnection connection;
    private volatile TcpPoller poller;
    private volatile String failureReason;
    private int inCapsuleCapacity;

    TcpHostQueue(String name, QueueId qid, int queueSize, int bufferSize, Duration commandTimeout,
            Duration spinBudget, boolean headerDigest, boolean dataDigest, QueueFailureListener failureListener) {
        this.name = name;
        this.qid = qid;
        this.queueSize = queueSize;
        this.sqsize = QueueLimits.sqsize(queueSize);
        this.bufferSize = bufferSize;
        this.timeoutNanos = commandTimeout.toNanos();
        this.spinNanos = spinBudget.toNanos();
        this.headerDigest = headerDigest;
        this.dataDigest = dataDigest;
        this.failureListener = failureListener;
        // at most queueSize - 1 outstanding: a full queue leaves one entry empty (NVMe Base 2.0, 3.3.1.5)
        int tags = queueSize - 1;
        this.requests = new TcpRequestTable(tags, arena);
        this.pending = new ArrayDeque<>(queueSize * 2);
        this.startedScratch = new TcpSlot[tags];
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public QueueId qid() {
        return qid;
    }

    @Override
    public int sqsize() {
        return sqsize;
    }

    @Override
    public void inCapsuleCapacity(int bytes) {
        synchronized (lock) {
            inCapsuleCapacity = Math.max(0, Math.min(bytes, bufferSize));
        }
    }

    @Override
    public int bufferSize() {
        return bufferSize;
    }

    @Override
    public boolean isLive() {
        return state == State.LIVE;
    }

    private boolean isUp() {
        return state == State.CONNECTING || state == State.LIVE;
    }

    @Override
    public void connect(InetSocketAddress address, Duration timeout) throws NvmfConnectException {
        synchronized (lock) {
            if (state == State.CLOSED) {
                throw new NvmfConnectException(name + ": queue is closed");
            }
            if (state != State.DOWN) {
                throw new IllegalStateException(name + " is already connected");
            }
        }
        TcpConnection c = TcpConnection.open(name, address, timeout, Duration.ofNanos(timeoutNanos), headerDigest,
                dataDigest);
        synchronized (lock) {
            connection = c;
            failureReason = null;
            state = State.CONNECTING;
            int gen = ++generation;
            poller = TcpPoller.start(this, c, new PduReceiver(this, c, c.arena()), gen);
        }
    }

    @Override
    public void markLive() {
        TcpSlot[] started = new TcpSlot[requests.size()];
        int count = 0;
        TcpConnection c;
        int gen;
        synchronized (lock) {
            if (state == State.CONNECTING) {
                state = State.LIVE;
                count = drainPending(started);
            }
            c = connection;
            gen = generation;
        }
        sendAll(c, gen, started, count);
    }

    @Override
    public void submit(NvmeRequest request) {
        enqueue(request, false);
    }

    @Override
    public void submitInit(NvmeRequest request) {
        enqueue(request, true);
    }

    /** As the RDMA queue: init commands go ahead of waiting I/O while connecting and fail when the queue is down. */
    private void enqueue(NvmeRequest request, boolean init) {
        NvmfException failure = null;
        TcpSlot slot = null;
        TcpConnection c = null;
        int gen = 0;
        request.retries(0);
        synchronized (lock) {
            State s = state;
            boolean mayStart = init ? isUp() : s == State.LIVE && pending.isEmpty();
            if (s == State.CLOSED && !init) {
                failure = new NvmfControllerLostException(name + ": queue is closed; " + request.describe()
                        + " not sent");
            } else if (mayStart) {
                slot = tryStart(request);
                if (slot == null) {
                    if (init) {
                        pending.addFirst(request);
                    } else {
                        pending.addLast(request);
                    }
                } else {
                    c = connection;
                    gen = generation;
                }
            } else if (init) {
                failure = new NvmfControllerLostException(name + ": not connected; " + request.describe()
                        + " not sent");
            } else if (s == State.DOWN && !request.retryAfterReconnect()) {
                failure = new NvmfControllerLostException(name + ": reconnecting; " + request.describe()
                        + " not sent");
            } else {
                pending.addLast(request);
            }
        }
        if (slot != null) {
            send(c, gen, slot);
        }
        if (failure != null) {
            request.failed(failure);
        }
    }

    /** Under the lock: a free tag for the request with its SQE written, or null when all are taken. */
    private TcpSlot tryStart(NvmeRequest request) {
        return requests.start(request, System.nanoTime(), qid.isAdmin(), inCapsuleCapacity);
    }

    /** Under the lock: starts waiting requests while tags last, into {@code started}. */
    private int drainPending(TcpSlot[] started) {
        int count = 0;
        while (state == State.LIVE && !pending.isEmpty()) {
            TcpSlot s = tryStart(pending.peekFirst());
            if (s == null) {
                break;
            }
            pending.pollFirst();
            started[count++] = s;
        }
        return count;
    }

    private void sendAll(TcpConnection c, int gen, TcpSlot[] started, int count) {
        for (int i = 0; i < count; i++) {
            TcpSlot s = started[i];
            started[i] = null;
            send(c, gen, s);
        }
    }

    /** The CapsuleCmd of a started command, after the lock; a connection replaced meanwhile is left alone. */
    private void send(TcpConnection c, int gen, TcpSlot slot) {
        String failed = null;
        synchronized (sendLock) {
            if (c == null || gen != generation) {
                return; // the command was re-queued for the next connection
            }
            try {
                c.sendCapsule(slot.sqe.segment(), slot.data, slot.dataOffset, slot.inCapsule ? slot.length : 0);
                if (slot.inCapsule) {
                    slot.sent = slot.length;
                }
            } catch (IOException | RuntimeException e) {
                failed = "send failed: " + e.getMessage();
            }
        }
        if (failed != null) {
            connectionFailed(gen, failed);
        }
    }

    // ---- from the receiver (on the poller or its claimant) -------------------------------------------------

    /** The outstanding command with this CID, or null. */
    TcpSlot activeSlot(int cid) {
        synchronized (lock) {
            return requests.lookup(cid);
        }
    }

    /** A CapsuleResp (or a C2HData with SUCCESS): the command completes and waiting ones take its tag. */
    void onResponse(int cid, int statusField, long result) throws PduException {
        NvmeRequest request;
        int count;
        TcpConnection c;
        int gen;
        synchronized (lock) {
            TcpSlot s = requests.lookup(cid);
            if (s == null) {
                throw PduException.field(CapsulePdu.OFFSET_ENTRY + CompletionQueueEntry.OFFSET_CID,
                        String.format("completion for unknown command id %d (0x%04x)", cid, cid));
            }
            request = requests.release(s);
            count = drainPending(startedScratch);
            c = connection;
            gen = generation;
        }
        sendAll(c, gen, startedScratch, count);
        request.completed(statusField, result);
    }

    /** An R2T: H2CData PDUs of at most MAXH2CDATA bytes for the range asked (nvme_tcp_handle_r2t()). */
    void onR2t(int cid, int ttag, long offset, long length) throws IOException {
        TcpSlot s = activeSlot(cid);
        if (s == null) {
            throw PduException.field(8, "R2T for command id " + cid + ", not outstanding");
        }
        if (s.request.direction() != NvmeRequest.Direction.HOST_TO_CONTROLLER || s.inCapsule) {
            throw PduException.field(8, "R2T for command id " + cid + ", which has no data to send by R2T");
        }
        if (length == 0 || offset < s.sent || offset + length > s.length) {
            throw PduException.outOfRange("R2T R2TO " + offset + " R2TL " + length + " for command id " + cid
                    + " of " + s.length + " bytes (" + s.sent + " sent)");
        }
        TcpConnection c = connection;
        long max = c.negotiated.maxH2cData();
        long end = offset + length;
        synchronized (sendLock) {
            for (long at = offset; at < end; ) {
                int chunk = (int) Math.min(end - at, max);
                c.sendH2cData(cid, ttag, at, chunk, at + chunk == end, s.data, s.dataOffset + at, s.dataView);
                at += chunk;
            }
        }
        s.sent = end;
    }

    /** The lock that orders this queue's PDUs on the socket (the receiver corks under it). */
    Object sendLock() {
        return sendLock;
    }

    // ---- failure ---------------------------------------------------------------------------------------------

    /** Like nvme_tcp_timeout(): a command past its deadline fails and the whole queue fails (controller reset). */
    void expireTimedOut(long now) {
        List<TcpFailures.Failure> failures = null; // made only on a timeout: this runs every tick
        String failure = null;
        synchronized (lock) {
            if (!isUp()) {
                return;
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
            for (int tag = 0; tag < requests.size(); tag++) {
                TcpSlot s = requests.slot(tag);
                if (s.expired(now, timeoutNanos)) {
                    NvmeRequest r = requests.release(s);
                    if (failures == null) {
                        failures = new ArrayList<>();
                    }
                    failures.add(new TcpFailures.Failure(r, new NvmfTimeoutException(name + ": " + r.describe()
                            + " got no response within " + ms + " ms")));
                    if (failure == null) {
                        failure = r.describe() + " timed out after " + ms + " ms";
                    }
                }
            }
            if (failure != null) {
                markFailed(name + ": " + failure, failures);
            }
        }
        if (failure != null) {
            TcpFailures.fail(failures);
            failureListener.queueFailed(this, name + ": " + failure);
        }
    }

    /** The connection of {@code gen} (-1: the current one) broke. */
    void connectionFailed(int gen, String reason) {
        List<TcpFailures.Failure> failures = new ArrayList<>();
        boolean first;
        synchronized (lock) {
            if (gen != -1 && gen != generation) {
                return;
            }
            first = markFailed(name + ": " + reason, failures);
        }
        TcpFailures.fail(failures);
        if (first) {
            failureListener.queueFailed(this, name + ": " + reason);
        }
    }

    /** Under the lock: the queue is down; what was outstanding waits for the reconnect or fails. */
    private boolean markFailed(String reason, List<TcpFailures.Failure> failures) {
        if (!isUp()) {
            return false;
        }
        state = State.DOWN;
        failureReason = reason;
        TcpPoller p = poller;
        if (p != null) {
            p.stop();
        }
        TcpFailures.requeueOrFail(requests, pending, reason, failures);
        return true;
    }


    @Override
    public boolean claimPolling() {
        TcpPoller p = poller;
        return p != null && p.request(Thread.currentThread());
    }

    @Override
    public int pollClaimed() {
        TcpPoller p = poller;
        return p == null ? -1 : p.pollClaimed(Thread.currentThread());
    }

    @Override
    public void releasePolling() {
        TcpPoller p = poller;
        if (p != null) {
            p.release(Thread.currentThread());
        }
    }

    // ---- life ------------------------------------------------------------------------------------------------

    @Override
    public int pendingCount() {
        synchronized (lock) {
            return pending.size();
        }
    }

    @Override
    public void disconnect() {
        List<TcpFailures.Failure> failures = new ArrayList<>();
        TcpPoller p;
        TcpConnection c;
        synchronized (lock) {
            if (isUp()) {
                markFailed(name + ": disconnected", failures);
            }
            p = poller;
            poller = null;
            c = connection;
            connection = null;
        }
        TcpFailures.fail(failures);
        if (p != null) {
            p.stop();
        }
        if (c != null) {
            c.shutdown(); // a sender blocked on a full socket gets an error, the poller's wait ends
        }
        if (p != null) {
            p.join();
        }
        if (c != null) {
            synchronized (sendLock) {
                c.close();
            }
        }
    }

    @Override
    public void failPending(NvmfException error) {
        for (NvmeRequest r : takePending()) {
            r.failed(error);
        }
    }

    private NvmeRequest[] takePending() {
        synchronized (lock) {
            NvmeRequest[] waiting = pending.toArray(new NvmeRequest[0]);
            pending.clear();
            return waiting;
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
        }
        disconnect();
        synchronized (lock) {
            state = State.CLOSED;
        }
        for (NvmeRequest r : takePending()) {
            r.failed(new NvmfControllerLostException(name + ": controller closed; " + r.describe()
                    + " not completed"));
        }
        arena.close();
    }

    @Override
    public String failureReason() {
        return failureReason;
    }

    /** Sends an H2CTermReq on the current connection (best effort: it is about to end). */
    void sendTermReq(TcpConnection c, PduException e, MemorySegment badHeader) {
        synchronized (sendLock) {
            try {
                c.sendTermReq(e.cause, badHeader);
            } catch (IOException | RuntimeException ignored) {
                // the connection ends anyway
            }
        }
    }

    @Override
    public String toString() {
        return name + "[" + qid + ", size " + queueSize + ", " + state + ", tcp]";
    }
}
