package io.nvmf4j.initiator.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduDigest;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The controller end of one NVMe/TCP connection, scripted by a test: it answers the host's ICReq (with the digests
 * the host asked for and a CPDA of the test's choice), then sends whatever bytes the test gives it and reads what
 * the host sends, PDU by PDU. Blocking I/O: one test thread drives it.
 */
final class FakeTcpController implements AutoCloseable {

    private final ServerSocketChannel server;
    private final int cpda;
    private final long maxH2cData;
    private SocketChannel peer;
    private NegotiatedParameters negotiated;

    FakeTcpController(int cpda, long maxH2cData) throws IOException {
        this.cpda = cpda;
        this.maxH2cData = maxH2cData;
        this.server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    /** Accepts the host's connection and answers its ICReq. */
    void accept() throws IOException {
        peer = server.accept();
        MemorySegment icReq = MemorySegment.ofArray(readFully(IcReq.LENGTH));
        IcReq request = IcReq.decode(icReq);
        IcResp response = new IcResp(IcReq.PFV_1_0, cpda, request.headerDigest(), request.dataDigest(), maxH2cData);
        byte[] pdu = new byte[IcReq.LENGTH];
        response.encode(MemorySegment.ofArray(pdu));
        send(pdu);
        negotiated = response.negotiated(request);
    }

    /**
     * A host queue (I/O queue 1 of {@code queueSize}) connected to this controller, its ICReq answered, live; its
     * failures go to {@code failures}.
     */
    TcpHostQueue connectHost(int queueSize, boolean headerDigest, boolean dataDigest,
            LinkedBlockingQueue<String> failures) throws Exception {
        TcpHostQueue queue = new TcpHostQueue("tcp-test-q1", QueueId.of(1), queueSize, 65536, Duration.ofSeconds(20),
                Duration.ofNanos(20_000), headerDigest, dataDigest, (q, reason) -> failures.add(reason));
        CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
            try {
                accept();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        queue.connect(address(), Duration.ofSeconds(10));
        accepted.get(10, TimeUnit.SECONDS);
        queue.markLive();
        return queue;
    }

    /** The next PDU the host sent, of {@code type}; {@code failures} say why when the host closed instead. */
    byte[] expectPdu(PduType type, LinkedBlockingQueue<String> failures) throws IOException {
        byte[] pdu = nextPdu();
        assertNotNull(pdu, "the host closed the connection; failures " + failures);
        assertEquals(type.code(), pdu[0] & 0xFF, "PDU type");
        return pdu;
    }

    NegotiatedParameters negotiated() {
        return negotiated;
    }

    void send(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            peer.write(b);
        }
    }

    /** The next whole PDU the host sent, or null when it closed the connection. */
    byte[] nextPdu() throws IOException {
        byte[] ch = readFully(PduHeader.LENGTH);
        if (ch == null) {
            return null;
        }
        long plen = PduHeader.length(MemorySegment.ofArray(ch));
        byte[] rest = readFully((int) plen - PduHeader.LENGTH);
        if (rest == null) {
            return null;
        }
        byte[] pdu = new byte[(int) plen];
        System.arraycopy(ch, 0, pdu, 0, ch.length);
        System.arraycopy(rest, 0, pdu, ch.length, rest.length);
        return pdu;
    }

    /** A CapsuleResp for command {@code cid} with status code {@code status}, its header digest as negotiated. */
    MemorySegment capsuleResp(int cid, int status) {
        MemorySegment p = MemorySegment.ofArray(new byte[64]);
        long plen = CapsulePdu.writeResponseHeader(p, negotiated);
        CompletionQueueEntry.wrap(CapsulePdu.response(p)).cid(cid);
        Wire.u16(p, CapsulePdu.OFFSET_ENTRY + CompletionQueueEntry.OFFSET_STATUS, status << 1);
        if (negotiated.headerDigest()) {
            PduDigest.write(p, 0, PduType.CAPSULE_RESP.headerLength());
        }
        return p.asSlice(0, plen);
    }

    /** An R2T asking command {@code cid} for {@code length} bytes at {@code offset} under {@code ttag}. */
    MemorySegment r2t(int cid, int ttag, long offset, long length) {
        MemorySegment p = MemorySegment.ofArray(new byte[64]);
        long plen = DataPdu.writeR2t(p, negotiated, cid, ttag, offset, length);
        if (negotiated.headerDigest()) {
            PduDigest.write(p, 0, PduType.R2T.headerLength());
        }
        return p.asSlice(0, plen);
    }

    /** The command identifier of a CapsuleCmd PDU (SQE bytes 2..3). */
    static int commandId(byte[] capsuleCmd) {
        return Wire.u16(MemorySegment.ofArray(capsuleCmd), PduHeader.LENGTH + 2);
    }

    private byte[] readFully(int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            if (peer.read(b) < 0) {
                return null;
            }
        }
        return b.array();
    }

    @Override
    public void close() throws IOException {
        if (peer != null) {
            peer.close();
        }
        server.close();
    }
}
