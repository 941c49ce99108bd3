package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.FatalErrorStatus;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduDigest;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermCause;
import io.nvmf4j.protocol.tcp.TermReq;
import io.nvmf4j.target.DataDirection;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.target.TransportQueue;
import io.nvmf4j.target.backend.BackendIo;
import io.nvmf4j.target.rdma.RejectReason;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One NVMe queue carried by one TCP connection (nvmet-tcp's {@code struct nvmet_tcp_queue}): the ICReq/ICResp
 * exchange ({@code nvmet_tcp_handle_icreq()}), each CapsuleCmd turned into a core {@link Request}
 * ({@code nvmet_tcp_handle_req()}), writes beyond the in-capsule data fetched with one R2T per command and the
 * H2CData PDUs that answer it ({@code nvmet_tcp_setup_r2t_pdu()}, {@code nvmet_tcp_handle_h2c_data_pdu()}), reads
 * sent as one C2HData PDU before the CapsuleResp ({@code nvmet_tcp_setup_c2h_data_pdu()}). The PDU bytes come in
 * through {@link PduReceiver} and go out through {@link TransmitQueue}; the command slots are {@link TcpRequest}s,
 * created on first need up to the queue's size and reused. Every method except {@link #queueResponse},
 * {@link #disconnect} and {@link #runOnQueueThread} runs on the owning {@link TcpPollGroup}'s thread; those hand
 * their work to it.
 *
 * <p>A peer that breaks the transport rules gets a C2HTermReq with the FES and FEI of the field in error, as SPDK's
 * {@code nvmf_tcp_send_c2h_term_req()} sends (nvmet-tcp only shuts the socket down, {@code nvmet_tcp_fatal_error()}),
 * and the connection closes; nothing a peer sends ends more than its own connection.
 */
final class TcpQueue implements TransportQueue {

    private static final System.Logger LOG = System.getLogger(TcpQueue.class.getName());
    /** Command slots before Connect sets the queue size: the Connect itself. */
    private static final int CONNECT_SLOTS = 1;

    final TcpPollGroup group;
    final SocketChannel channel;
    final Port port;
    final SubmissionQueue sq;
    final InetSocketAddress remote;
    final InetSocketAddress local;
    /** The connection's CRC32C for header and data digests (poll thread only; nothing allocated per PDU). */
    final PduDigest digest = new PduDigest();
    final PduReceiver receiver;
    private final TransmitQueue transmit;
    private final RequestSlots slots;
    private final TcpBufferQuota quota;
    private final TcpConnectPhase connect;
    private SelectionKey key;
    private NegotiatedParameters negotiated;
    /** The capsule or H2CData PDU whose data is being received. */
    private TcpRequest current;
    private boolean closing;
    /** The previous housekeeping round saw the transmit memory bound broken ({@link #checkTransmitMemory}). */
    private boolean transmitMemoryBreach;
    private boolean receiving; // while poll() hands received PDUs on: responses wait for its one flush
    private boolean closeAfterFlush;
    /** Requests the core still holds after the connection closed (a backend operation, an event). */
    private int orphans;

    TcpQueue(TcpPollGroup group, SocketChannel channel, NvmeTarget target, Port port, Runnable releaseUnconnected)
            throws IOException {
        this.group = group;
        this.channel = channel;
        this.port = port;
        this.remote = (InetSocketAddress) channel.getRemoteAddress();
        this.local = (InetSocketAddress) channel.getLocalAddress();
        int max = Math.min(port.maxQueueSize(), 65536);
        this.quota = new TcpBufferQuota(group);
        this.slots = new RequestSlots(this, quota, port.inlineDataSize(), max);
        this.receiver = new PduReceiver(this);
        this.transmit = new TransmitQueue(max);
        this.sq = target.createQueue(port, this);
        this.connect = new TcpConnectPhase(this, sq, releaseUnconnected);
    }

    void attach(SelectionKey k) {
        this.key = k;
    }

    NegotiatedParameters negotiated() {
        return negotiated;
    }

    boolean closing() {
        return closing;
    }

    /** The most PLEN this side takes of a PDU of {@code type} ({@link TcpPdus#maxReceived}). */
    long maxPduLength(PduType type) {
        return TcpPdus.maxReceived(negotiated, port.inlineDataSize(), type);
    }

    /** Reads what the socket has and writes what waits; true when anything moved (or the connection ended). */
    boolean poll() {
        if (closing) {
            return false;
        }
        try {
            receiving = true; // left set only by a failure, which closes the queue
            int read = receiver.receive(channel);
            receiving = false;
            if (read < 0) {
                close(null, "peer closed the connection");
                return true;
            }
            long before = transmit.written();
            if (!closing && !transmit.isEmpty()) {
                flush(); // a peer that takes nothing is no work: the loop may block until it is writable
            }
            return read > 0 || transmit.written() != before || closing;
        } catch (IOException e) {
            close(null, "connection failed: " + e.getMessage());
            return true;
        }
    }

    private void flush() throws IOException {
        boolean all = transmit.flush(channel, this);
        if (closing) {
            return;
        }
        if (all && closeAfterFlush) {
            close(null, "Disconnect command");
            return;
        }
        if (key != null && key.isValid()) {
            int ops = all ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE;
            if (key.interestOps() != ops) {
                key.interestOps(ops);
            }
        }
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (IOException e) {
            close(null, "connection failed: " + e.getMessage());
        }
    }

    /** nvmet_tcp_handle_icreq(): the digests as the host asks, CPDA 0, MAXH2CDATA from the options. */
    void icReq(MemorySegment pdu) {
        IcReq request = IcReq.decode(pdu);
        IcResp response = IcResp.answering(request, group.maxH2cData());
        negotiated = response.negotiated(request);
        transmit.control(TcpPdus.encoded(IcReq.LENGTH, response::encode), System.nanoTime());
        if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "{0}: ICReq {1}, answered {2}", this, request, response);
        }
        flushQuietly();
    }

    /** A CapsuleCmd or H2CData header passed its checks: where its data goes. */
    void headerReceived(PduType type, MemorySegment header, long dataLength) {
        if (type == PduType.CAPSULE_CMD) {
            TcpRequest r = slots.take(slotLimit());
            if (r == null) {
                close(RejectReason.PROTOCOL_ERROR, "CapsuleCmd beyond the queue's " + slotLimit() + " entries");
                return;
            }
            r.arrivalNanos = System.nanoTime();
            MemorySegment.copy(header, CapsulePdu.OFFSET_ENTRY, r.sqeMemory, 0, SubmissionQueueEntry.SIZE);
            r.inCapsuleBytes = (int) dataLength;
            current = r;
            if (dataLength > 0) {
                receiver.expectData(r.inCapsule, 0, dataLength);
            }
        } else if (type == PduType.H2C_DATA) {
            h2cData(header, dataLength);
        } else {
            // PduHeader.check lets through only what a controller receives; anything else is ours to refuse
            fatal(new TermCause(FatalErrorStatus.INVALID_HEADER_FIELD, PduHeader.OFFSET_TYPE, type
                    + " is not taken here"), header.asSlice(0, PduHeader.LENGTH));
        }
    }

    /** An H2CData header: checked against the R2T it answers ({@link H2cDataCheck}); its data goes in place. */
    private void h2cData(MemorySegment header, long dataLength) {
        int ttag = DataPdu.transferTag(header);
        TcpRequest r = slots.byTag(ttag);
        TermCause bad = H2cDataCheck.check(header, r, dataLength);
        if (bad != null) {
            fatal(bad, header.asSlice(0, PduType.H2C_DATA.headerLength()));
            return;
        }
        long offset = DataPdu.dataOffset(header);
        current = r;
        r.h2cEnd = (int) (offset + dataLength);
        receiver.expectData(r.block, offset, offset + dataLength);
    }

    /** The PDU whose header was taken last is complete (data and digest included). */
    void dataReceived(PduType type) {
        TcpRequest r = current;
        current = null;
        if (type == PduType.CAPSULE_CMD) {
            startCommand(r);
        } else if (type == PduType.H2C_DATA) {
            r.received = r.h2cEnd;
            if (r.received == r.transferLength) {
                r.state = TcpRequest.State.EXECUTING;
                sq.execute(r.request);
            }
        }
    }

    void dataDigestError(PduType type) {
        // nvmet_tcp_try_recv_ddgst(): the connection ends (there is no FES for a data digest error)
        close(RejectReason.PROTOCOL_ERROR, type + " data digest mismatch");
    }

    void hostTerminated(MemorySegment pdu) {
        close(RejectReason.PROTOCOL_ERROR, TcpPdus.describeTermReq(pdu));
    }

    /** A fatal transport error: a C2HTermReq quoting the bad header, then the connection ends. */
    void fatal(TermCause cause, MemorySegment badHeader) {
        receiver.stop();
        TermReq term = TermReq.of(false, cause, badHeader);
        transmit.control(TcpPdus.encoded(term.length(), term::encode), System.nanoTime());
        try {
            var _ = transmit.flush(channel, this); // best effort: the socket takes a short PDU at once
        } catch (IOException e) {
            // the peer is gone already
        }
        close(RejectReason.PROTOCOL_ERROR, cause.status() + " (FEI " + cause.information() + "): "
                + cause.reason());
    }

    /** Commands a host may have outstanding: the queue's size once connected, the Connect alone before. */
    private int slotLimit() {
        int size = sq.size();
        return size == 0 ? CONNECT_SLOTS : size;
    }

    /** nvmet_tcp_handle_req() onwards: the core parses the command, the SGL is mapped, the data fetched or not. */
    private void startCommand(TcpRequest r) {
        Request req = r.request;
        req.reset(r.sqe);
        r.block = null;
        r.received = 0;
        r.transferLength = 0;
        r.state = TcpRequest.State.EXECUTING;
        if (!sq.prepare(req)) {
            return; // already answered through queueResponse
        }
        r.started = true;
        group.observer().commandStarted(req);
        Status status = TcpSgl.map(r, req.dataDirection(), port.inlineDataSize(), group.maxTransfer(port));
        if (!status.isSuccess()) {
            req.fail(status, req.errorLocation());
            return;
        }
        long use = req.admitTransfer(r.transferLength);
        if (use < 0) {
            req.fail(StatusCode.SGL_INVALID_DATA.withDnr(), req.errorLocation());
            return;
        }
        r.transferLength = (int) use;
        if (r.usesInCapsule) {
            req.data(r.inCapsuleOffset == 0 ? r.inCapsule.slice(use)
                    : r.inCapsule.memory.asSlice(r.inCapsuleOffset, use));
            sq.execute(req);
        } else if (use == 0) {
            sq.execute(req);
        } else {
            quota.needBuffer(r); // within the queue's share of the pool, then the pool
        }
    }

    /** A pool buffer for {@code r}: an R2T for the whole write (MAXR2T 0), or the command runs. */
    void haveBuffer(TcpRequest r, DataBlock b) {
        r.block = b;
        Request req = r.request;
        req.data(b.slice(r.transferLength));
        if (req.dataDirection() == DataDirection.HOST_TO_CONTROLLER) {
            NegotiatedParameters n = negotiated;
            r.state = TcpRequest.State.WAIT_H2C;
            TcpPdus.r2t(r, n);
            r.r2tNanos = System.nanoTime();
            transmit.enqueue(r, r.r2tNanos);
            flushQuietly();
        } else {
            if (sq.qidValue() == 0) {
                // admin data is built piecewise: never leak another command's bytes (I/O Reads fill every byte)
                req.data().fill((byte) 0);
            }
            r.state = TcpRequest.State.EXECUTING;
            sq.execute(req);
        }
    }

    /** nvmet_tcp_queue_response(): from any thread; the poll-group thread sends. */
    @Override
    public void queueResponse(Request request) {
        TcpRequest r = (TcpRequest) request.transportContext();
        if (group.isPollThread()) {
            responseQueued(r);
        } else {
            group.execute(() -> responseQueued(r));
        }
    }

    private void responseQueued(TcpRequest r) {
        if (closing) {
            if (r.state != TcpRequest.State.FREE) {
                release(r);
                if (--orphans == 0) {
                    group.queueGone(this);
                }
            }
            return;
        }
        Request req = r.request;
        if (r.started) {
            r.started = false;
            group.observer().commandFinished(req, System.nanoTime() - r.arrivalNanos, true);
        }
        connect.announce(req);
        boolean dataOut = req.dataDirection() == DataDirection.CONTROLLER_TO_HOST && r.transferLength > 0
                && r.block != null && req.statusField() == 0;
        // SPDK's nvmf_tcp_send_c2h_data() also keeps the CapsuleResp for a result other than zero in DW0/DW1
        boolean success = dataOut && sq.sqFlowControlDisabled() && req.cqe().result() == 0;
        TcpPdus.response(r, negotiated, dataOut, success);
        r.state = TcpRequest.State.SENDING;
        transmit.enqueue(r, System.nanoTime());
        if (!receiving) {
            flushQuietly(); // inside receive, poll() flushes once for every response the received commands gave
        }
    }

    /** Everything {@code r} queued went out (from {@link TransmitQueue#flush}). */
    void sent(TcpRequest r) {
        if (r.txIsR2t) {
            return; // it waits for its H2CData
        }
        if (r.request.disconnectAfterResponse()) {
            closeAfterFlush = true;
        }
        release(r);
    }

    private void release(TcpRequest r) {
        slots.release(r, group);
    }

    /** Poll thread, each housekeeping round: the ICReq and connect timeouts, R2T data and transmit stalls. */
    void checkTimeouts(long now, TcpTransportOptions o) {
        if (closing) {
            return;
        }
        String late = connect.timedOut(now, negotiated != null, o);
        if (late != null) {
            close(RejectReason.CONNECT_TIMEOUT, late);
            return;
        }
        long limit = o.commandTimeout().toNanos();
        TcpRequest overdue = slots.overdueR2t(now, limit);
        if (overdue != null) {
            close(RejectReason.READ_TIMEOUT, "H2CData for an R2T of " + overdue.transferLength
                    + " bytes not sent within " + o.commandTimeout().toMillis() + " ms");
            return;
        }
        long since = transmit.waitingSince();
        if (since != 0 && now - since > limit) {
            close(RejectReason.TRANSMIT_STALLED, "peer took nothing sent for " + o.commandTimeout().toMillis()
                    + " ms");
            return;
        }
        checkTransmitMemory(now);
    }

    /**
     * The memory bound of the RDMA transport's {@code TransmitProgress}, over TCP: more than half the queue's share
     * of the pool in data queued over {@link TransmitQueue#STALL_NANOS} ago and still not in the socket ends the
     * connection. A peer that reads a few bytes at a time (a receive window opened a crack, discovery's 1 MiB log
     * reads included, which need no authentication) makes progress as {@link TransmitQueue#waitingSince} sees it
     * and would otherwise keep its share of the pool for as long as it likes. As there, a breach counts only when
     * two consecutive rounds see it: a round after the poll thread was held off the CPU may not yet have written.
     */
    private void checkTransmitMemory(long now) {
        long stalled = transmit.stalledBytes(now, TransmitQueue.STALL_NANOS);
        long share = quota.limit() / 2;
        if (stalled <= share) {
            transmitMemoryBreach = false;
            return;
        }
        if (!transmitMemoryBreach) {
            transmitMemoryBreach = true;
            return;
        }
        close(RejectReason.TRANSMIT_STALLED, stalled + " bytes of data unsent for over "
                + TransmitQueue.STALL_NANOS / 1_000_000 + " ms, more than half the queue's share of "
                + quota.limit() + " bytes");
    }

    /**
     * Closes the connection (nvmet_tcp_release_queue_work()): the socket, the submission queue (which leaves its
     * controller), and every request the core does not hold; one it holds (a backend operation, an event) is let go
     * when it comes back. With a {@code reason} the peer broke a rule or a limit: logged once (rate-limited) and
     * counted; null is an ordinary end. Idempotent; poll thread.
     */
    void close(RejectReason reason, String detail) {
        if (closing) {
            return;
        }
        closing = true;
        quota.close();
        receiver.stop();
        if (reason != null) {
            connect.report(reason, detail);
        } else if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "{0}: closed ({1})", this, detail);
        }
        if (key != null) {
            key.cancel();
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: close: {1}", this, e.getMessage());
        }
        connect.leaveUnconnected();
        var c = sq.controller();
        if (connect.connected() && c != null) {
            group.observer().queueDisconnected(c.subsystem().nqn().value(), sq.qidValue());
        }
        // requests the core answers while it lets the queue go (Asynchronous Event Requests) come back through
        // responseQueued, which releases them as the connection is closing
        orphans = Integer.MAX_VALUE / 2;
        sq.destroy();
        int held = 0;
        for (int i = 0; i < slots.created(); i++) {
            TcpRequest r = slots.get(i);
            if (r.state == TcpRequest.State.EXECUTING) {
                held++;
            } else {
                release(r);
            }
        }
        orphans = held;
        if (held == 0) {
            group.queueGone(this);
        }
    }

    @Override
    public void failed(RuntimeException e) {
        group.failed(this, e);
    }

    @Override
    public BackendIo backendIo() {
        return group.backendIo();
    }

    /**
     * A timed-out backend operation keeps the buffer it was given: the request forgets a pool buffer (its response
     * goes out without data) and the pool gets it back when the operation really ends; an in-capsule buffer belongs
     * to its slot, which is not reused until then.
     */
    @Override
    public Runnable detachData(Request request) {
        TcpRequest r = (TcpRequest) request.transportContext();
        if (r.usesInCapsule) {
            r.inCapsuleLent = true;
            return () -> slots.returned(r);
        }
        DataBlock b = r.block;
        if (b == null) {
            return null;
        }
        r.block = null;
        return () -> group.giveBuffer(b);
    }

    @Override
    public void runOnQueueThread(Runnable task) {
        group.execute(task);
    }

    /** The controller failed or is being deleted (any thread): close the connection. */
    @Override
    public void disconnect() {
        group.execute(() -> close(null, "controller teardown"));
    }

    @Override
    public String localAddress() {
        return local == null ? null : local.getAddress().getHostAddress();
    }

    @Override
    public String remoteAddress() {
        return remote == null || remote.getAddress() == null ? null : remote.getAddress().getHostAddress();
    }

    static String address(InetSocketAddress a) {
        return a == null ? "?" : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    @Override
    public String toString() {
        var c = sq == null ? null : sq.controller();
        return "tcp queue " + (sq == null ? 0 : sq.qidValue()) + (c == null ? "" : " of controller " + c.id())
                + " from " + address(remote);
    }
}
