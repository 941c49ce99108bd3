package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrame;
import io.nvmf4j.verbs.softiwarp.mpa.MpaNegotiation;
import io.nvmf4j.verbs.softiwarp.mpa.MpaV2IrdOrd;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** A received, valid MPA request waiting for the application (siw SIW_EPSTATE_RECVD_MPAREQ). */
final class SoftiwarpConnectRequest implements ConnectRequest {
    private final SoftiwarpDevice device;
    private final SocketChannel channel;
    private final MpaNegotiation.Request request;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final long createdNanos = System.nanoTime();
    private boolean answered;

    SoftiwarpConnectRequest(SoftiwarpDevice device, SocketChannel channel, MpaNegotiation.Request request)
            throws IOException {
        this.device = device;
        this.channel = channel;
        this.request = request;
        this.local = (InetSocketAddress) channel.getLocalAddress();
        this.remote = (InetSocketAddress) channel.getRemoteAddress();
    }

    @Override
    public byte[] privateData() {
        return request.privateData().clone();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public int peerIrd() {
        return request.peerIrd();
    }

    @Override
    public int peerOrd() {
        return request.peerOrd();
    }

    private synchronized void answer() throws VerbsException {
        if (answered) {
            throw new VerbsException(VerbsErrorCode.INVALID_STATE, "connection request already answered");
        }
        answered = true;
    }

    /** siw_accept(). */
    private void checkPrivateDataLength(byte[] privateData) throws VerbsException {
        int max = MpaFrame.MAX_PRIVATE_DATA - (request.enhanced() ? MpaV2IrdOrd.LENGTH : 0);
        if (privateData != null && privateData.length > max) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "private data longer than " + max + " bytes");
        }
    }

    @Override
    public RdmaConnection accept(AcceptParams params) throws VerbsException {
        checkPrivateDataLength(params.privateData());
        answer();
        if (!(params.pd() instanceof SoftiwarpProtectionDomain pd)) {
            ChannelIo.closeQuietly(channel);
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "protection domain of another provider");
        }
        SoftiwarpQueuePair qp = null;
        try {
            // the queue pair belongs to the device of its protection domain (its STags live there)
            qp = pd.softiwarpDevice().createQueuePair(pd, params.sendCq(), params.recvCq(), params.qpAttributes());
            int[] irdOrd = MpaNegotiation.acceptedIrdOrd(request, params.qpAttributes().ird(),
                    params.qpAttributes().ord(), SoftiwarpDevice.MAX_IRD, SoftiwarpDevice.MAX_ORD);
            qp.negotiated(irdOrd[0], irdOrd[1], request.crc());
            params.setup().beforeConnect(qp);
            byte[] reply = MpaNegotiation.reply(request, irdOrd[0], irdOrd[1], params.privateData()).encode();
            SoftiwarpConnection connection = new SoftiwarpConnection(qp, request.privateData(), local, remote);
            // the reply goes out before the queue pair may transmit: no FPDU can overtake it
            ChannelIo.writeFully(channel, ByteBuffer.wrap(reply),
                    System.nanoTime() + device.config().mpaTimeout().toNanos());
            qp.establish(channel);
            qp.device.engine().add(qp);
            return connection;
        } catch (IOException e) {
            if (qp != null) {
                qp.close();
            }
            ChannelIo.closeQuietly(channel);
            if (e instanceof VerbsException ve) {
                throw ve;
            }
            throw new VerbsException(VerbsErrorCode.CONNECTION_RESET, "accept failed: " + e.getMessage(), e);
        }
    }

    /** siw_reject(). */
    @Override
    public void reject(byte[] privateData) throws VerbsException {
        checkPrivateDataLength(privateData);
        answer();
        try {
            ChannelIo.writeFully(channel, ByteBuffer.wrap(MpaNegotiation.reject(request,
                    privateData == null ? new byte[0] : privateData).encode()), System.nanoTime() + 1_000_000_000L);
        } catch (IOException e) {
            throw new VerbsException(VerbsErrorCode.CONNECTION_RESET, "reject failed: " + e.getMessage(), e);
        } finally {
            ChannelIo.closeQuietly(channel);
        }
    }

    synchronized boolean answered() {
        return answered;
    }

    /** When the valid request came in (System.nanoTime): the application has the MPA timeout to answer. */
    long createdNanos() {
        return createdNanos;
    }

    /**
     * Rejects without private data if still unanswered (listener closing, backlog full, or the application did not
     * answer in time): one non-blocking write of the reject, then close - it never waits for the peer. Returns
     * whether this call answered it.
     */
    boolean abandon() {
        return abandon(null, null);
    }

    /** {@link #abandon()}, counting {@code reason} before the reject leaves when this call answers it. */
    boolean abandon(RejectedPeers counter, RejectedPeers.Reason reason) {
        synchronized (this) {
            if (answered) {
                return false;
            }
            answered = true;
        }
        if (counter != null) {
            counter.add(reason);
        }
        ChannelIo.writeOnce(channel, ByteBuffer.wrap(MpaNegotiation.reject(request, new byte[0]).encode()));
        ChannelIo.closeQuietly(channel);
        return true;
    }
}
