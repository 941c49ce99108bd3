package io.nvmf4j.cli.rping;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The resources of one rping connection, as {@code rping_setup_qp()} and {@code rping_setup_buffers()}
 * make them: one completion queue for both queues ({@code RPING_SQ_DEPTH * 2} entries), a 16-byte
 * receive buffer, a 16-byte send buffer, the "rdma" buffer (server: read sink and write source;
 * client: write sink) and, on the client, the "start" buffer (read source); one Receive, one Send
 * and one RDMA work request, reused for every ping.
 *
 * <p>rping waits for completions on a CQ thread and hands them over with a semaphore; here the
 * ping thread polls the CQ itself (no thread hand-off), and counts completions by kind so that a
 * Send completion arriving before or after the Receive it raced with is never lost.
 */
final class RpingSession implements AutoCloseable {

    /** {@code RPING_SQ_DEPTH}. */
    static final int SEND_DEPTH = 16;
    /** rping posts one receive at a time and asks for two. */
    static final int RECV_DEPTH = 2;
    /** rping's {@code responder_resources} and {@code initiator_depth}. */
    static final int READ_DEPTH = 1;

    private static final long POLL_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Arena arena = Arena.ofShared();
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion recvRegion;
    private final MemoryRegion sendRegion;
    private final MemoryRegion rdmaRegion;
    private final MemoryRegion startRegion;
    private final ReceiveWorkRequest recvWr = new ReceiveWorkRequest(1);
    private final SendWorkRequest sendWr = new SendWorkRequest(1);
    private final SendWorkRequest rdmaWr = new SendWorkRequest(1);
    private final WorkCompletion[] completions = new WorkCompletion[8];
    private final long timeoutNanos;
    private final Consumer<String> debug;
    private RdmaConnection connection;

    private int sendsPending;
    private int receivesDone;
    private int receivedLength;
    private int readsDone;
    private int writesDone;
    private boolean flushed;

    /**
     * @param rdmaSize  size of the rdma buffer
     * @param startSize size of the start buffer, 0 for none (server)
     * @param debug     takes the {@code -d} lines, or null
     */
    RpingSession(RdmaDevice device, int rdmaSize, int startSize, long timeoutNanos, Consumer<String> debug)
            throws VerbsException {
        this.timeoutNanos = timeoutNanos;
        this.debug = debug;
        for (int i = 0; i < completions.length; i++) {
            completions[i] = new WorkCompletion();
        }
        ProtectionDomain pdLocal = null;
        CompletionQueue cqLocal = null;
        try {
            pdLocal = device.allocatePd();
            cqLocal = device.createCompletionQueue(SEND_DEPTH * 2);
            EnumSet<AccessFlag> remote = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
                    AccessFlag.REMOTE_WRITE);
            recvRegion = pdLocal.register(arena.allocate(RpingRdmaInfo.BYTES, 8), EnumSet.of(AccessFlag.LOCAL_WRITE));
            sendRegion = pdLocal.register(arena.allocate(RpingRdmaInfo.BYTES, 8), EnumSet.noneOf(AccessFlag.class));
            rdmaRegion = pdLocal.register(arena.allocate(rdmaSize, 64), remote);
            startRegion = startSize > 0 ? pdLocal.register(arena.allocate(startSize, 64), remote) : null;
        } catch (VerbsException | RuntimeException e) {
            if (cqLocal != null) {
                cqLocal.close();
            }
            if (pdLocal != null) {
                pdLocal.close();
            }
            arena.close();
            throw e;
        }
        this.pd = pdLocal;
        this.cq = cqLocal;
        // rping_setup_wr(): the receive and send work requests never change; the RDMA one is patched per use
        recvWr.wrId(1).local(recvRegion, 0, RpingRdmaInfo.BYTES);
        sendWr.wrId(2).opcode(SendOpcode.SEND).signaled(true).local(sendRegion, 0, RpingRdmaInfo.BYTES);
        rdmaWr.wrId(3).signaled(true);
    }

    /** The queue pair wanted: rping_create_qp()'s sizes, IRD/ORD of rping_init_conn_param(). */
    static QueuePairAttributes queuePairAttributes() {
        return QueuePairAttributes.defaults()
                .withQueueDepths(SEND_DEPTH, RECV_DEPTH)
                .withSge(1, 1)
                .withReadDepths(READ_DEPTH, READ_DEPTH);
    }

    ProtectionDomain pd() {
        return pd;
    }

    CompletionQueue cq() {
        return cq;
    }

    MemoryRegion rdmaRegion() {
        return rdmaRegion;
    }

    MemoryRegion startRegion() {
        return startRegion;
    }

    MemorySegment receivedInfo() {
        return recvRegion.segment();
    }

    /**
     * Posts the first receive on the new queue pair before the connection is established (rping posts
     * it before {@code rdma_connect}/{@code rdma_accept}): the peer may send the moment it is connected.
     */
    QueuePairSetup prePostReceive() {
        return queuePair -> queuePair.postReceive(recvWr);
    }

    /** Binds the session to its connection (whose queue pair got the receive from {@link #prePostReceive}). */
    void attach(RdmaConnection established) {
        this.connection = established;
    }

    RdmaConnection connection() {
        return connection;
    }

    private void postReceive() throws VerbsException {
        connection.queuePair().postReceive(recvWr);
    }

    /**
     * Sends an advertisement of {@code size} bytes of {@code region} ({@code rping_format_send()}). The
     * send buffer is rewritten only once the previous Send from it has completed.
     */
    void sendInfo(MemoryRegion region, int size) throws RpingException, VerbsException {
        awaitSendsCompleted();
        RpingRdmaInfo.encode(sendRegion.segment(), region.address(), region.rkey(), size);
        debug("RDMA addr %x rkey %x len %d", region.address(), region.rkey(), size);
        postSend(sendWr);
    }

    /** The server's go-ahead: the 16-byte send buffer as it is (rping never fills it in). */
    void sendGoAhead() throws VerbsException {
        postSend(sendWr);
    }

    /** Posts an RDMA Read or Write of {@code length} bytes between the rdma buffer and the peer's buffer. */
    void postRdma(SendOpcode opcode, long remoteAddress, int rkey, int length) throws VerbsException {
        rdmaWr.opcode(opcode).remote(remoteAddress, rkey).local(rdmaRegion, 0, length);
        debug("%s laddr %x lkey %x len %d raddr %x rkey %x", opcode, rdmaRegion.address(), rdmaRegion.lkey(), length,
                remoteAddress, rkey);
        postSend(rdmaWr);
    }

    private void postSend(SendWorkRequest wr) throws VerbsException {
        connection.queuePair().postSend(wr);
        if (wr == sendWr) {
            sendsPending++;
        }
    }

    /**
     * Waits for the next Receive and returns its byte length. The receive buffer stays untouched until
     * the caller re-posts the receive (after reading it), as rping's CQ handler does.
     */
    private int awaitReceive(String what) throws RpingException {
        while (receivesDone == 0) {
            progress(what);
        }
        receivesDone--;
        return receivedLength;
    }

    /** Waits for the peer's next advertisement, decodes it and re-posts the receive. */
    RpingRdmaInfo awaitInfo(String what) throws RpingException, VerbsException {
        int length = awaitReceive(what);
        RpingRdmaInfo info = RpingRdmaInfo.decode(recvRegion.segment(), length);
        postReceive();
        debug("received %s", info);
        return info;
    }

    /** Waits for the server's go-ahead (a 16-byte Send, contents ignored), re-posts the receive. */
    void awaitGoAhead(String what) throws RpingException, VerbsException {
        int length = awaitReceive(what);
        if (length != RpingRdmaInfo.BYTES) {
            throw new RpingException("Received bogus data, size " + length + " (waiting for " + what + ")");
        }
        postReceive();
        debug("received go-ahead (%s)", what);
    }

    void awaitRead() throws RpingException {
        while (readsDone == 0) {
            progress("the RDMA Read to complete");
        }
        readsDone--;
    }

    void awaitWrite() throws RpingException {
        while (writesDone == 0) {
            progress("the RDMA Write to complete");
        }
        writesDone--;
    }

    void awaitSendsCompleted() throws RpingException {
        while (sendsPending > 0) {
            progress("our Send to complete");
        }
    }

    /** Polls the CQ once (waiting up to the timeout for something) and files what it finds. */
    private void progress(String what) throws RpingException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (flushed || !connection.isConnected()) {
                // drain what is left, then report the end
                int n = cq.poll(completions);
                if (n > 0) {
                    file(n);
                    return;
                }
                var event = connection.disconnectEvent();
                throw new RpingDisconnectedException("connection ended while waiting for " + what
                        + (event != null ? " (" + event.cause() + ": " + event.detail() + ")" : ""));
            }
            int n;
            try {
                n = cq.await(completions, Math.min(POLL_SLICE_NANOS, Math.max(1, deadline - System.nanoTime())),
                        TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RpingException("interrupted while waiting for " + what, e);
            }
            if (n > 0) {
                file(n);
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new RpingException("timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                        + " ms waiting for " + what);
            }
        }
    }

    private void file(int n) throws RpingException {
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            if (wc.status() != WcStatus.SUCCESS) {
                if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                    flushed = true;   // rping_cq_event_handler(): flushes mean the connection is going away
                    continue;
                }
                throw new RpingException("cq completion failed status " + wc.status().value() + " (" + wc.status()
                        + ", " + wc + ")");
            }
            switch (wc.opcode()) {
                case SEND -> {
                    sendsPending--;
                    debug("send completion");
                }
                case RECV -> {
                    receivesDone++;
                    receivedLength = wc.byteLength();
                    debug("recv completion, %d bytes", wc.byteLength());
                }
                case RDMA_READ -> {
                    readsDone++;
                    debug("rdma read completion");
                }
                case RDMA_WRITE -> {
                    writesDone++;
                    debug("rdma write completion");
                }
                default -> throw new RpingException("unexpected completion " + wc);
            }
        }
    }

    @SuppressWarnings("AnnotateFormatMethod") // @FormatMethod would make the Error Prone annotations a dependency of the cli jar for one debug helper
    void debug(String format, Object... args) {
        if (debug != null) {
            debug.accept(String.format(format, args));
        }
    }

    @Override
    public void close() {
        try {
            if (connection != null) {
                connection.close();
            }
        } finally {
            for (MemoryRegion region : new MemoryRegion[] {startRegion, rdmaRegion, sendRegion, recvRegion}) {
                if (region != null) {
                    region.close();
                }
            }
            cq.close();
            pd.close();
            arena.close();
        }
    }
}
