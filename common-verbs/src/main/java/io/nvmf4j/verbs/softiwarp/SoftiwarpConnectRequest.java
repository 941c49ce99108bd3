package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrame;
import io.nvmf4j.verbs.softiwarp.mpa.MpaNegotiation;
import io.nvmf4j.verbs.softiwarp.mpa.MpaV2IrdOrd;
import io.nvmf4j.verbs.provider.ProviderConnectRequest;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A received, valid MPA request waiting for the application (siw SIW_EPSTATE_RECVD_MPAREQ). The one-shot answer
 * and the private-data limit (siw_accept()/siw_reject(): what fits in an MPA frame besides the RFC 6581 IRD/ORD
 * words of an enhanced request) are {@link ProviderConnectRequest}'s; the MPA reply and reject on the socket are
 * here.
 */
final class SoftiwarpConnectRequest extends ProviderConnectRequest {
    private final SoftiwarpDevice device;
    private final SocketChannel channel;
    private final MpaNegotiation.Request request;

    SoftiwarpConnectRequest(SoftiwarpDevice device, SocketChannel channel, MpaNegotiation.Request request)
            throws IOException {
        super(request.privateData(), (InetSocketAddress) channel.getLocalAddress(),
                (InetSocketAddress) channel.getRemoteAddress(), request.peerIrd(), request.peerOrd(),
                MpaFrame.MAX_PRIVATE_DATA - (request.enhanced() ? MpaV2IrdOrd.LENGTH : 0),
                request.enhanced() ? "an MPA v2 reply" : "an MPA v1 reply");
        this.device = device;
        this.channel = channel;
        this.request = request;
    }

    /** siw_accept(). */
    @Override
    protected RdmaConnection acceptClaimed(AcceptParams params) throws VerbsException {
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
            SoftiwarpConnection connection = new SoftiwarpConnection(qp, request.privateData(), localAddress(),
                    remoteAddress());
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
    protected void rejectClaimed(byte[] privateData) throws VerbsException {
        try {
            ChannelIo.writeFully(channel, ByteBuffer.wrap(MpaNegotiation.reject(request, privateData).encode()),
                    System.nanoTime() + 1_000_000_000L);
        } catch (IOException e) {
            throw new VerbsException(VerbsErrorCode.CONNECTION_RESET, "reject failed: " + e.getMessage(), e);
        } finally {
            ChannelIo.closeQuietly(channel);
        }
    }

    /**
     * One non-blocking write of a reject without private data, then close: it never waits for the peer (listener
     * closing, backlog full, or the application did not answer in time).
     */
    @Override
    protected void refuseClaimed() {
        ChannelIo.writeOnce(channel, ByteBuffer.wrap(MpaNegotiation.reject(request, new byte[0]).encode()));
        ChannelIo.closeQuietly(channel);
    }

    /** {@link #abandon()}, counting {@code reason} before the reject leaves when this call answers it. */
    boolean abandon(RejectedPeers counter, RejectedPeers.Reason reason) {
        return abandon(() -> counter.add(reason));
    }
}
