package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.softiwarp.ddp.DdpHeader;
import io.nvmf4j.verbs.softiwarp.ddp.DdpUntaggedHeader;
import io.nvmf4j.verbs.softiwarp.mpa.Crc32c;
import io.nvmf4j.verbs.softiwarp.rdmap.ReadRequestHeader;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateCodes;
import io.nvmf4j.verbs.softiwarp.rdmap.TerminateMessage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Sending the Terminate of a queue pair that ends (siw_send_terminate() of Linux siw_qp.c, RFC 5040 section 7):
 * encoded once with its CRC, written after the FPDU on the wire is complete, never waiting for the peer. The
 * queue pair's end ({@link QpClose}) drives it, lingering while the socket is full.
 */
final class TerminateTx {
    /** {@link #start}/{@link #continueTerminate}: the Terminate is out. */
    static final int TERMINATE_DONE = 0;
    /** The socket is full: try again when it has room (the engine does, until the linger time is over). */
    static final int TERMINATE_MORE = 1;
    /** It cannot be delivered (the socket failed, or did not take payload of registered memory built before it). */
    static final int TERMINATE_GIVE_UP = 2;

    /** The encoded Terminate FPDU being delivered (allocated once, when the connection ends). */
    private ByteBuffer terminateOut;
    private final Crc32c crc = new Crc32c();
    private final SoftiwarpQueuePair qp;
    private final Transmitter tx;

    TerminateTx(SoftiwarpQueuePair qp, Transmitter tx) {
        this.qp = qp;
        this.tx = tx;
    }

    /**
     * Best effort, as siw_send_terminate() (which sends with MSG_DONTWAIT): never waits for the peer. A Terminate
     * must not split an FPDU, so what the transmitter built goes first - when its bytes are our own copies (the
     * outbox), later too; a write list with payload straight from registered memory must go out now, because once
     * its work requests are flushed that memory is the application's again. Returns {@link #TERMINATE_DONE},
     * {@link #TERMINATE_MORE} or {@link #TERMINATE_GIVE_UP}.
     */
    int start(SocketChannel ch, TerminateMessage terminate) {
        ByteBuffer out = ByteBuffer.allocate(terminate.lengthWithoutCrc() + DdpHeader.MPA_CRC_LENGTH);
        terminate.encode(out);
        int crcValue = 0;
        if (qp.crcEnabled) {
            crc.reset();
            crc.update(out, 0, terminate.lengthWithoutCrc());
            crcValue = crc.wireValue();
        }
        out.putInt(terminate.lengthWithoutCrc(), crcValue);
        out.clear();
        terminateOut = out;
        try {
            if (!tx.finishGathered(ch)) {
                return TERMINATE_GIVE_UP;
            }
            return continueTerminate(ch);
        } catch (IOException | RuntimeException e) {
            return TERMINATE_GIVE_UP;
        }
    }

    /** Writes more of what was built and then the Terminate, without waiting; see {@link #start}. */
    int continueTerminate(SocketChannel ch) {
        try {
            if (!tx.flush(ch)) {
                return TERMINATE_MORE;
            }
            ch.write(terminateOut);
            return terminateOut.hasRemaining() ? TERMINATE_MORE : TERMINATE_DONE;
        } catch (IOException | RuntimeException e) {
            return TERMINATE_GIVE_UP;
        }
    }

    /**
     * siw_send_terminate() with in_tx: an RDMAP remote protection error found while answering a Read Request;
     * the Read Request header is reconstructed and attached (M, D, R set).
     */
    static TerminateMessage forReadRequest(ReadResponseWqe r, MemoryCheck check) {
        ByteBuffer rreq = ByteBuffer.allocate(ReadRequestHeader.LENGTH);
        ReadRequestHeader.encode(rreq, r.msn, r.sinkStag, r.sinkTo, r.readSize, r.sourceStag, r.sourceTo);
        rreq.put(DdpUntaggedHeader.OFFSET_ULP_RESERVED, new byte[4]);
        return TerminateMessage.forInbound(TerminateCodes.LAYER_RDMAP, TerminateCodes.RDMAP_ETYPE_REMOTE_PROTECTION,
                check.rdmapCode(), rreq, ReadRequestHeader.LENGTH);
    }
}
