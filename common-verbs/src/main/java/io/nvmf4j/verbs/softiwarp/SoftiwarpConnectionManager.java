package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectionManager;
import io.nvmf4j.verbs.ConnectionRejectedException;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.provider.PrivateData;
import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpTaggedHeader;
import io.nvmf4j.verbs.softiwarp.mpa.Crc32c;
import io.nvmf4j.verbs.softiwarp.mpa.MpaException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrame;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrameReader;
import io.nvmf4j.verbs.softiwarp.mpa.MpaNegotiation;
import io.nvmf4j.verbs.softiwarp.mpa.MpaV2IrdOrd;
import io.nvmf4j.verbs.softiwarp.rdmap.RdmapOpcode;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateCodes;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** softiwarp connection setup: listen, and the active side of the MPA exchange (siw_connect, siw_proc_mpareply). */
final class SoftiwarpConnectionManager implements ConnectionManager {
    private final SoftiwarpDevice device;
    private final List<SoftiwarpListener> listeners = new CopyOnWriteArrayList<>();

    SoftiwarpConnectionManager(SoftiwarpDevice device) {
        this.device = device;
    }

    @Override
    public RdmaListener listen(InetSocketAddress local, int backlog) throws VerbsException {
        try {
            SoftiwarpListener l = new SoftiwarpListener(device, local, backlog);
            listeners.add(l);
            return l;
        } catch (IOException e) {
            throw new VerbsException(VerbsErrorCode.IO_ERROR, "cannot listen on " + local + ": " + e.getMessage(), e);
        }
    }

    void forget(SoftiwarpListener l) {
        listeners.remove(l);
    }

    void closeListeners() {
        for (SoftiwarpListener l : listeners) {
            l.close();
        }
    }

    @Override
    public RdmaConnection connect(InetSocketAddress remote, ConnectParams params, Duration timeout)
            throws VerbsException {
        if (!(params.pd() instanceof SoftiwarpProtectionDomain pd)) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "protection domain of another provider");
        }
        byte[] privateData = params.privateData();
        // the request is always enhanced (RFC 6581): its IRD/ORD words take 4 of MPA's 512 bytes
        PrivateData.checkLength(privateData, MpaFrame.MAX_PRIVATE_DATA - MpaV2IrdOrd.LENGTH, "an MPA v2 request");
        long deadline = System.nanoTime() + timeout.toNanos();
        SocketChannel ch = null;
        SoftiwarpQueuePair qp = null;
        try (Selector selector = Selector.open()) {
            ch = SocketChannel.open();
            ChannelIo.configure(ch);
            if (!ch.connect(remote)) {
                SelectionKey key = ch.register(selector, SelectionKey.OP_CONNECT);
                while (!ch.finishConnect()) {
                    waitFor(selector, deadline, "TCP connection to " + remote);
                }
                key.interestOps(0);
            }
            qp = pd.softiwarpDevice().createQueuePair(pd, params.sendCq(), params.recvCq(), params.qpAttributes());
            params.setup().beforeConnect(qp);
            SoftiwarpConfig config = device.config();
            MpaFrame request = MpaNegotiation.request(params.qpAttributes().ird(), params.qpAttributes().ord(),
                    config.crcRequired(), config.peerToPeer(), privateData);
            ChannelIo.writeFully(ch, ByteBuffer.wrap(request.encode()), deadline);
            MpaFrameReader reader = new MpaFrameReader();
            SelectionKey key = ch.keyFor(selector);
            if (key == null) {
                key = ch.register(selector, SelectionKey.OP_READ);
            } else {
                key.interestOps(SelectionKey.OP_READ);
            }
            MpaFrame reply;
            while ((reply = reader.read(ch)) == null) {
                waitFor(selector, deadline, "MPA reply from " + remote);
            }
            MpaNegotiation.Reply accepted;
            try {
                accepted = MpaNegotiation.judgeReply(reply, request, SoftiwarpDevice.MAX_IRD);
            } catch (MpaNegotiation.Rejected r) {
                throw new ConnectionRejectedException("connection to " + remote + " rejected by the peer",
                        r.privateData());
            } catch (MpaNegotiation.ReplyRefused r) {
                if (r.llpErrorCode() != 0) {
                    sendTerminate(ch, TerminateMessage.plain(TerminateCodes.LAYER_LLP, TerminateCodes.LLP_ETYPE_MPA,
                            r.llpErrorCode()), reply.crc(), deadline);
                }
                throw new VerbsException(VerbsErrorCode.PROTOCOL_ERROR, "bad MPA reply from " + remote + ": "
                        + r.getMessage());
            }
            qp.negotiated(accepted.ird(), accepted.ord(), accepted.crc());
            key.cancel();
            selector.selectNow(); // deregister before the engine's selector takes the channel
            if (accepted.sendRtr()) {
                sendZeroLengthWriteRtr(ch, accepted.crc(), deadline);
            }
            qp.establish(ch);
            SoftiwarpConnection connection = new SoftiwarpConnection(qp, accepted.privateData(),
                    (InetSocketAddress) ch.getLocalAddress(), remote);
            qp.device.engine().add(qp);
            return connection;
        } catch (IOException | MpaException e) {
            if (qp != null) {
                qp.close();
            }
            if (ch != null) {
                ChannelIo.closeQuietly(ch);
            }
            if (e instanceof VerbsException ve) {
                throw ve;
            }
            if (e instanceof java.net.ConnectException) {
                throw new VerbsException(VerbsErrorCode.CONNECTION_REFUSED, "connection to " + remote + " refused: "
                        + e.getMessage(), e);
            }
            throw new VerbsException(VerbsErrorCode.CONNECTION_RESET, "connection to " + remote + " failed: "
                    + e.getMessage(), e);
        }
    }

    private static void waitFor(Selector selector, long deadline, String what) throws IOException, VerbsException {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            throw new VerbsException(VerbsErrorCode.TIMED_OUT, "timed out waiting for " + what);
        }
        selector.select(Math.max(1, remaining / 1_000_000));
        selector.selectedKeys().clear();
    }

    /**
     * siw_qp_mpa_rts() with MPA_V2_RDMA_WRITE_RTR: a zero-length, unsignalled RDMA Write to STag 1, TO 0 ("some HW
     * may treat STag 0 special").
     */
    private static void sendZeroLengthWriteRtr(SocketChannel ch, boolean crc, long deadline)
            throws IOException, VerbsException {
        ByteBuffer fpdu = ByteBuffer.allocate(DdpTaggedHeader.LENGTH + DdpHeader.MPA_CRC_LENGTH);
        DdpTaggedHeader.encode(fpdu, RdmapOpcode.RDMA_WRITE.code(), true, 1, 0, 0);
        putCrc(fpdu, DdpTaggedHeader.LENGTH, crc);
        ChannelIo.writeFully(ch, fpdu.clear(), deadline);
    }

    private static void sendTerminate(SocketChannel ch, TerminateMessage t, boolean crc, long deadline) {
        ByteBuffer fpdu = ByteBuffer.allocate(t.lengthWithoutCrc() + DdpHeader.MPA_CRC_LENGTH);
        t.encode(fpdu);
        putCrc(fpdu, t.lengthWithoutCrc(), crc);
        try {
            ChannelIo.writeFully(ch, fpdu.clear(), Math.min(deadline, System.nanoTime() + 1_000_000_000L));
        } catch (IOException ignored) {
            // best effort, as siw_send_terminate
        }
    }

    private static void putCrc(ByteBuffer fpdu, int length, boolean crc) {
        int value = 0;
        if (crc) {
            Crc32c c = new Crc32c();
            c.update(fpdu, 0, length);
            value = c.wireValue();
        }
        fpdu.putInt(length, value);
    }
}
