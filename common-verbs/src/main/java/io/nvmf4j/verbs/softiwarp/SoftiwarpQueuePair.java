package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.provider.ProviderQueuePair;
import io.nvmf4j.verbs.provider.WorkRequests;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * A softiwarp RC queue pair (siw_qp): send queue, receive queue, outbound read queue (ORQ, our RDMA Reads in
 * flight, at most ORD) and inbound read queue (IRQ, peer Reads to answer, at most IRD).
 *
 * <p>Threading, as siw keeps {@code tx_ctx} and {@code rx_stream} apart: what only one side writes lives on that
 * side's object - {@link TxContext} (the transmit drain, one thread at a time), {@link RxStream} (the receiver,
 * one thread at a time: the engine or an inline-polling consumer), {@link EngineWatch} (the progress engine
 * thread), the end of the connection on {@link QpClose} (inside the transmit drain). Each type says which thread
 * writes it and how the others see it. The fields here are the ones several threads write or read, each with the
 * lock or the volatile that orders them beside it.
 */
public final class SoftiwarpQueuePair extends ProviderQueuePair {
    static final PeerLog FAILURE_LOG =
            new PeerLog(System.getLogger(SoftiwarpQueuePair.class.getName()));
    final SoftiwarpDevice device;
    final SoftiwarpProtectionDomain pd;
    final SoftiwarpCompletionQueue sendCq;
    final SoftiwarpCompletionQueue recvCq;
    final SoftiwarpConfig config;
    final int number;
    /** Written under stateLock; volatile for the lock-free checks of every side. */
    private volatile QueuePairState state = QueuePairState.INIT;

    // send queue: slots [sqFreeHead, sqTail) are in use; the transmitter works at txContext.sqHead
    final SendWqe[] sq;
    final Object postLock = new Object();
    /** Posters only, under postLock. */
    private long sqFreeHead;
    /** Written by posters under postLock; volatile: it publishes the filled slots to the transmitter. */
    volatile long sqTail;

    /*
     * Receive queue: [rqHead, rqTail), a single-producer single-consumer ring. Posters (serialised among
     * themselves by postRecvLock) fill slots and publish rqTail; the receiver (one thread at a time, RxStream)
     * consumes and publishes rqHead. The two never share a monitor: a poll group posting its next receive must
     * not wait for an engine that completes the previous one (and unparks the poller) under a lock. The flush on
     * error takes both locks, so it excludes posters and the receiver alike.
     */
    final ReceiveWqe[] rq;
    final Object postRecvLock = new Object();
    final Object rqLock = new Object();
    /** Written by the receiver and by the flush, both under rqLock; volatile: posters read it for room. */
    volatile long rqHead;
    /** Written by posters under postRecvLock; volatile: it publishes the filled slots to the receiver. */
    volatile long rqTail;
    /** Set by the flush under both locks; volatile: the receiver peeks without a lock. */
    volatile boolean rqFlushed;

    // outbound read queue: [orqHead, orqTail); TX appends, RX consumes, the flush empties it: all under orqLock.
    // orq and irq are sized (sizeReadQueues) before establish publishes the channel through its volatile write.
    SendWqe[] orq;
    final Object orqLock = new Object();
    /** Volatile besides orqLock: the transmitter checks ORD (orqHasRoom) without the lock. */
    volatile long orqHead;
    /** Volatile besides orqLock: the transmitter checks ORD (orqHasRoom) without the lock. */
    volatile long orqTail;
    /** Under orqLock only. */
    boolean orqFlushed;

    // inbound read queue: [txContext.irqHead, rxStream.irqTail); RX appends, TX consumes
    ReadResponseWqe[] irq;

    /** Set once at connection setup, before the channel is published; volatile for every side that frames. */
    volatile boolean crcEnabled;
    /** Set once by establish; volatile: the transmitter and the receiver of any thread read it. */
    volatile SocketChannel channel;
    /** Set once when an engine takes the queue pair; volatile: any thread wakes it. */
    volatile ProgressEngine engine;
    /**
     * Set by the transmitter when the socket is full, cleared by the engine or an inline-polling consumer that
     * retries: volatile, as it crosses from the transmit drain to whoever watches the socket.
     */
    volatile boolean txBlocked;

    final TxContext txContext = new TxContext(this);
    final RxStream rxStream = new RxStream(this);
    final EngineWatch engineWatch = new EngineWatch();
    final Transmitter transmitter;
    final TerminateTx terminateTx;
    final Receiver receiver;
    /** The end of the connection: Terminate, linger, socket close, flush (siw_qp_llp_close). */
    private final QpClose close = new QpClose(this);
    /** Work completions in queue order (siw_sqe_complete, siw_rqe_complete). */
    private final QpCompletions completions = new QpCompletions(this);

    private final Object stateLock = new Object();
    /** Written under stateLock before state becomes ERROR; volatile for the end's listener and readers. */
    volatile DisconnectEvent endEvent;
    /** Written under stateLock; volatile: the transmit drain reads it to send the Terminate. */
    volatile TerminateMessage pendingTerminate;
    /** What {@link #pendingTerminate} reports, for the end event (guarded by stateLock). */
    private String terminateDetail;
    /** Set by the connection's owner while the engine may already run it; volatile: the drain calls it. */
    volatile Consumer<DisconnectEvent> endListener;

    SoftiwarpQueuePair(SoftiwarpDevice device, int number, SoftiwarpProtectionDomain pd,
                       SoftiwarpCompletionQueue sendCq, SoftiwarpCompletionQueue recvCq, QueuePairAttributes attrs,
                       SoftiwarpConfig config) {
        super(attrs);
        this.device = device;
        this.number = number;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.config = config;
        sq = new SendWqe[attrs.maxSendWr()];
        for (int i = 0; i < sq.length; i++) {
            sq[i] = new SendWqe(attrs.maxSendSge());
        }
        rq = new ReceiveWqe[attrs.maxRecvWr()];
        for (int i = 0; i < rq.length; i++) {
            rq[i] = new ReceiveWqe(attrs.maxRecvSge());
        }
        sizeReadQueues(attrs.ird(), attrs.ord());
        transmitter = new Transmitter(this);
        terminateTx = new TerminateTx(this, transmitter);
        receiver = new Receiver(this);
    }

    /** Sizes IRQ/ORQ to the negotiated IRD/ORD (at least 1 slot each), before the connection is established. */
    void sizeReadQueues(int ird, int ord) {
        irq = new ReadResponseWqe[Math.max(1, ird)];
        for (int i = 0; i < irq.length; i++) {
            irq[i] = new ReadResponseWqe();
        }
        orq = new SendWqe[Math.max(1, ord)];
    }

    void negotiated(int ird, int ord, boolean crc) {
        readDepths(ird, ord);
        sizeReadQueues(ird, ord);
        crcEnabled = crc;
    }

    /** Moves to RTS on the given socket (siw_qp_modify to RTS with the LLP handle). */
    void establish(SocketChannel channel) {
        this.channel = channel;
        synchronized (stateLock) {
            if (state == QueuePairState.INIT || state == QueuePairState.RTR) {
                state = QueuePairState.RTS;
            }
        }
    }

    void onEnd(Consumer<DisconnectEvent> listener) {
        this.endListener = listener;
    }

    @Override
    public int number() {
        return number;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    DisconnectEvent endEvent() {
        return endEvent;
    }

    boolean finished() {
        return close.finished();
    }

    @Override
    public void postSend(SendWorkRequest request) throws VerbsException {
        int count = 0;
        for (SendWorkRequest wr = request; wr != null; wr = wr.next()) {
            WorkRequests.checkSgeCount("work request", wr.wrId(), wr.sgList().count(), attributes().maxSendSge());
            if (wr.opcode() == SendOpcode.RDMA_READ && wr.sgList().totalLength() > 0xffffffffL) {
                throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "RDMA Read larger than 4 GiB - 1");
            }
            count++;
        }
        synchronized (postLock) {
            if (state == QueuePairState.ERROR) {
                for (SendWorkRequest wr = request; wr != null; wr = wr.next()) {
                    sendCq.push(wr.wrId(), WcStatus.WR_FLUSH_ERR, WorkRequests.completionOpcode(wr.opcode()), 0, number, false, 0, 0);
                }
                return;
            }
            reclaimSendSlots();
            if (sqTail - sqFreeHead + count > sq.length) {
                throw new VerbsException(VerbsErrorCode.QUEUE_FULL, "send queue full (" + sq.length + " entries)");
            }
            long tail = sqTail;
            for (SendWorkRequest wr = request; wr != null; wr = wr.next()) {
                sq[(int) (tail % sq.length)].copyFrom(wr);
                tail++;
            }
            sqTail = tail;
        }
        if (txHolder == Thread.currentThread()) {
            txDeferred = true; // its flushSends() writes it with the rest of the burst
            return;
        }
        SoftiwarpCompletionQueue cq = sendCq;
        if (cq.deferTx(this)) {
            return; // the posting thread polls cq: its next poll writes everything posted meanwhile at once
        }
        kickTx();
    }

    /**
     * Set when a send was posted by the thread that is inline-polling the send CQ: the transmitter then runs at
     * that thread's next poll (or the engine's, if it stops polling), so that the responses or commands posted
     * while handling one batch of completions leave in one write (doorbell batching, like SPDK's
     * delay_cmd_submit). Set by that consumer, cleared by whichever thread runs the deferred transmit (that consumer
     * or the engine): volatile, as it crosses between them.
     */
    volatile boolean txDeferred;

    /** The thread whose posts wait for its {@link #flushSends} ({@link #holdSends}), or null. */
    private volatile Thread txHolder;

    @Override
    public void holdSends() {
        txHolder = Thread.currentThread();
    }

    @Override
    public void flushSends() {
        if (txHolder == Thread.currentThread()) {
            txHolder = null;
        }
        flushDeferredTx();
    }

    /** Runs a deferred transmit now. */
    void flushDeferredTx() {
        if (txDeferred) {
            txDeferred = false;
            kickTx();
        }
    }

    private void reclaimSendSlots() {
        long txHead = txContext.sqHead;
        while (sqFreeHead < txHead && sq[(int) (sqFreeHead % sq.length)].done) {
            sqFreeHead++;
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest request) throws VerbsException {
        int count = 0;
        for (ReceiveWorkRequest wr = request; wr != null; wr = wr.next()) {
            WorkRequests.checkSgeCount("receive", wr.wrId(), wr.sgList().count(), attributes().maxRecvSge());
            count++;
        }
        synchronized (postRecvLock) {
            if (state == QueuePairState.ERROR || rqFlushed) {
                for (ReceiveWorkRequest wr = request; wr != null; wr = wr.next()) {
                    recvCq.push(wr.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, number, false, 0, 0);
                }
                return;
            }
            long tail = rqTail;
            if (tail - rqHead + count > rq.length) {
                throw new VerbsException(VerbsErrorCode.QUEUE_FULL, "receive queue full (" + rq.length + " entries)");
            }
            for (ReceiveWorkRequest wr = request; wr != null; wr = wr.next()) {
                rq[(int) (tail % rq.length)].copyFrom(wr);
                tail++;
            }
            rqTail = tail; // publishes the filled slots to the receiver (volatile write after the plain ones)
        }
    }

    /** Ends a send-queue WQE once (siw_sqe_complete); completions are reported in send queue order. */
    void completeSend(SendWqe wqe, WcStatus status, int byteLength, int vendorError) {
        completions.completeSend(wqe, status, byteLength, vendorError);
    }

    /** Completes the receive at the head of the RQ (siw_rqe_complete); false if it was flushed meanwhile. */
    boolean completeReceive(ReceiveWqe expected, WcStatus status, int byteLength, boolean invalidated, int rkey) {
        return completions.completeReceive(expected, status, byteLength, invalidated, rkey);
    }

    /** The receive at the head of the RQ, or null if none is posted (receiver thread; no lock). */
    ReceiveWqe peekReceive() {
        long head = rqHead;
        return rqFlushed || head == rqTail ? null : rq[(int) (head % rq.length)];
    }

    /** The oldest outstanding RDMA Read, or null. */
    SendWqe peekRead() {
        synchronized (orqLock) {
            return orqFlushed || orqHead == orqTail ? null : orq[(int) (orqHead % orq.length)];
        }
    }

    /** Completes the oldest outstanding RDMA Read and frees its ORQ slot. */
    void completeRead(SendWqe wqe, WcStatus status, int vendorError) {
        synchronized (orqLock) {
            if (orqFlushed || orqHead == orqTail || orq[(int) (orqHead % orq.length)] != wqe) {
                return;
            }
            orqHead++;
        }
        completeSend(wqe, status, status == WcStatus.SUCCESS ? (int) wqe.totalLength : 0, vendorError);
    }

    /** Whether the ORQ can take another Read (ORD not reached). */
    boolean orqHasRoom() {
        return orqTail - orqHead < orq.length;
    }

    void orqAppend(SendWqe wqe) {
        synchronized (orqLock) {
            orq[(int) (orqTail % orq.length)] = wqe;
            orqTail++;
        }
    }

    /** One inline progress step from a polling consumer (SoftiwarpCompletionQueue): receive, retry a full socket. */
    boolean progressInline() {
        if (state != QueuePairState.RTS) {
            return false;
        }
        if (overrun) {
            enterError(DisconnectEvent.Cause.TRANSPORT_ERROR, "completion queue overrun: completions were lost", null);
            return true;
        }
        boolean progress = rxStream.progress();
        if (txBlocked) {
            txBlocked = false;
            kickTx();
        }
        return progress;
    }

    /** The socket's descriptor number (-1 when it cannot be had), looked up once. */
    private int socketDescriptor = -2;

    /** The socket's file descriptor for a consumer that waits on it ({@link ChannelDescriptor}); -1 if none. */
    int socketDescriptor() {
        int fd = socketDescriptor;
        if (fd == -2) {
            SocketChannel ch = channel;
            if (ch == null) {
                return -1; // not connected yet: look again later
            }
            fd = ChannelDescriptor.of(ch);
            socketDescriptor = fd;
        }
        return fd;
    }

    /**
     * Whether a consumer may sleep watching the socket's readability itself: connected, and no transmit waiting for
     * room in the socket (only the engine's OP_WRITE interest would notice the room).
     */
    boolean watchable() {
        return state == QueuePairState.RTS && !txBlocked && !txDeferred;
    }

    /** Whether a consumer of either completion queue sleeps watching this queue pair's socket. */
    boolean watched() {
        return recvCq.watched() || sendCq.watched();
    }

    /** Whether a polling consumer of either completion queue reads this queue pair's socket now. */
    boolean inlineDriven(long now) {
        return recvCq.inlineActive(now) || (sendCq != recvCq && sendCq.inlineActive(now));
    }

    void attachToCompletionQueues() {
        recvCq.attach(this);
        if (sendCq != recvCq) {
            sendCq.attach(this);
        }
    }

    void detachFromCompletionQueues() {
        recvCq.detach(this);
        sendCq.detach(this);
    }

    /** Runs the transmitter unless another thread is already running it (that thread then runs it again). */
    void kickTx() {
        txContext.kick();
    }

    /**
     * Moves the queue pair to ERROR (siw_qp_cm_drop + siw_qp_llp_close): the Terminate, if any, is sent best
     * effort once the FPDU on the wire is complete, the stream is shut down (QpClose), outstanding work requests
     * are flushed and the connection's listeners hear about it. Idempotent; the first cause wins - except that a
     * Terminate recorded before ({@link #initTerminate}) always goes out and names the end, whoever ends the queue
     * pair (siw sends term_info whenever it drops the connection, siw_qp_cm_drop()).
     */
    boolean enterError(DisconnectEvent.Cause cause, String detail, TerminateMessage terminate) {
        synchronized (stateLock) {
            if (state == QueuePairState.ERROR) {
                return false;
            }
            if (pendingTerminate != null) {
                endEvent = new DisconnectEvent(DisconnectEvent.Cause.TERMINATE_SENT, terminateDetail);
            } else {
                endEvent = new DisconnectEvent(cause, detail);
                pendingTerminate = terminate;
            }
            state = QueuePairState.ERROR;
        }
        kickTx();
        ProgressEngine e = engine;
        if (e != null) {
            e.wakeup();
        }
        return true;
    }

    /**
     * siw_init_terminate(): records the Terminate of an error before the work completion that reports the error
     * becomes visible. An application that ends the connection on that completion (the NVMe target disconnects on
     * a failed receive) must not win the race and close the socket without it: the peer would see a plain close
     * instead of the Terminate RFC 5040 4.8 owes it. The first recorded Terminate wins, as in siw; nothing is
     * recorded once the queue pair has ended. {@code countAs} is counted once, with the recording.
     */
    void initTerminate(String detail, TerminateMessage terminate, RejectedPeers.Reason countAs) {
        synchronized (stateLock) {
            if (state == QueuePairState.ERROR || pendingTerminate != null) {
                return;
            }
            pendingTerminate = terminate;
            terminateDetail = detail;
            if (countAs != null) {
                // counted before the Terminate goes out, so a reader that sees the connection end sees the count
                device.rejectedPeers().add(countAs);
            }
        }
    }

    /**
     * The peer broke the protocol or a protection rule: Terminate and ERROR, counted once as
     * {@link RejectedPeers.Reason#TERMINATE_SENT}. A Terminate recorded earlier for the same error
     * ({@link #initTerminate}) is the one that goes out.
     */
    void peerFault(String detail, TerminateMessage terminate) {
        initTerminate(detail, terminate, RejectedPeers.Reason.TERMINATE_SENT);
        enterError(DisconnectEvent.Cause.TERMINATE_SENT, detail, null);
    }

    /** The end of this queue pair's connection: its linger (Terminate delivery, orderly close), for the engine. */
    QpClose closing() {
        return close;
    }

    /**
     * Set when a completion did not fit its CQ; the progress engine then ends the connection (siw: CQ error).
     * Volatile: set by whichever thread completes, read by the engine and inline-polling consumers.
     */
    volatile boolean overrun;

    void cqOverrun() {
        overrun = true;
        ProgressEngine e = engine;
        if (e != null) {
            e.wakeup();
        }
    }

    /** Ends the connection from this side (rdma_disconnect): no Terminate, flush. */
    void disconnect() {
        enterError(DisconnectEvent.Cause.LOCAL_DISCONNECT, "disconnected by the local application", null);
    }

    @Override
    public void close() {
        disconnect();
        device.forget(this);
    }

    @Override
    public String toString() {
        return "softiwarp QP " + number + " (" + state + ")";
    }
}
