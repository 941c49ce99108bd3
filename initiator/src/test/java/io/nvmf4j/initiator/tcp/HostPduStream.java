package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.TestRequest;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The NVMe/TCP host's PDU receiver fed bytes directly, for the fuzz target in {@code io.nvmf4j.initiator.fuzz}
 * (test scope: the library stays as it is). A host queue is connected to a controller double on loopback that
 * answers the ICReq and takes whatever the host sends (H2CData, H2CTermReq); a read of {@value #READ_BYTES} bytes
 * (CID {@value #READ_CID}) and a write by R2T of {@value #WRITE_BYTES} bytes (CID {@value #WRITE_CID}) are
 * outstanding on it. The bytes go to a receiver as the queue's poller hands it what it read, in pieces of a given
 * size; the queue's own poller sees nothing. The read's memory has a canary page on either side.
 */
public final class HostPduStream implements AutoCloseable {

    /** The first CID of tag 0 and tag 1 ({@link TcpSlot}: reuse count 1 in the bits above the tag). */
    public static final int READ_CID = 0x1000;
    public static final int WRITE_CID = 0x1001;
    public static final int READ_BYTES = 4096;
    public static final int WRITE_BYTES = 16384;
    /** MAXH2CDATA the double offers: a write's data goes in several H2CData PDUs. */
    public static final int MAX_H2C_DATA = 8192;
    private static final byte CANARY = 0x5A;

    private static ServerSocketChannel controller;
    /** Per digest choice, a connection whose negotiated parameters the receivers take (it carries nothing). */
    private static final TcpConnection[] PARAMETERS = new TcpConnection[4];

    /** The requests' memory (the queue may touch it from its poller; freed with the stream by the collector). */
    private final Arena arena = Arena.ofAuto();
    private final TcpHostQueue queue;
    private final Arena receiverMemory = Arena.ofConfined();
    private final PduReceiver receiver;
    private final MemorySegment readMemory;
    private final MemorySegment writeData;
    private final byte[] written;

    private HostPduStream(boolean headerDigest, boolean dataDigest) throws IOException {
        InetSocketAddress address = controllerAddress();
        queue = new TcpHostQueue("fuzz-q1", QueueId.of(1), 16, 65536, Duration.ofSeconds(30), Duration.ZERO,
                headerDigest, dataDigest, (q, reason) -> { });
        queue.connect(address, Duration.ofSeconds(10));
        queue.markLive();
        readMemory = arena.allocate(3L * READ_BYTES);
        readMemory.fill(CANARY);
        written = new byte[WRITE_BYTES];
        for (int i = 0; i < written.length; i++) {
            written[i] = (byte) (i * 7 + 1);
        }
        writeData = arena.allocate(WRITE_BYTES);
        MemorySegment.copy(written, 0, writeData, ValueLayout.JAVA_BYTE, 0, WRITE_BYTES);
        queue.submit(TestRequest.read(0, readMemory.asSlice(READ_BYTES, READ_BYTES)));
        queue.submit(TestRequest.write(64, writeData));
        // a connection negotiated alike gives the receiver its parameters; what it answers an R2T with goes out
        // on the queue's connection
        receiver = new PduReceiver(queue, parameters(address, headerDigest, dataDigest), receiverMemory);
    }

    private static synchronized TcpConnection parameters(InetSocketAddress address, boolean headerDigest,
            boolean dataDigest) throws IOException {
        int i = (headerDigest ? 1 : 0) | (dataDigest ? 2 : 0);
        if (PARAMETERS[i] == null) {
            PARAMETERS[i] = TcpConnection.open("fuzz-parameters", address, Duration.ofSeconds(10),
                    Duration.ofSeconds(30), headerDigest, dataDigest);
        }
        return PARAMETERS[i];
    }

    /** A queue with the digests given, connected, its read and write outstanding. */
    public static HostPduStream open(boolean headerDigest, boolean dataDigest) throws IOException {
        return new HostPduStream(headerDigest, dataDigest);
    }

    /**
     * Hands {@code bytes} to the receiver in pieces of {@code pieceSize} (0: all at once), as reads of the socket
     * would. Returns, or throws the IOException (a PduException for a PDU refused) that ends the connection.
     */
    public void receive(byte[] bytes, int pieceSize) throws IOException {
        int piece = pieceSize <= 0 ? Math.max(1, bytes.length) : pieceSize;
        for (int at = 0; at < bytes.length; at += piece) {
            receiver.receive(MemorySegment.ofArray(bytes).asSlice(at, Math.min(piece, bytes.length - at)));
        }
    }

    /** Whether the canaries around the read's memory and the write's data are as they were. */
    public boolean memoryIntact() {
        for (long i = 0; i < readMemory.byteSize(); i++) {
            if ((i < READ_BYTES || i >= 2L * READ_BYTES) && readMemory.get(ValueLayout.JAVA_BYTE, i) != CANARY) {
                return false;
            }
        }
        return writeData.mismatch(MemorySegment.ofArray(written)) == -1;
    }

    @Override
    public void close() {
        queue.close();
        receiverMemory.close();
    }

    /** The controller double: one accepting thread, one virtual thread per connection taking what the host sends. */
    private static synchronized InetSocketAddress controllerAddress() throws IOException {
        if (controller == null) {
            controller = ServerSocketChannel.open()
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            Thread.ofPlatform().daemon().name("fuzz-tcp-controller").start(HostPduStream::accept);
        }
        return (InetSocketAddress) controller.getLocalAddress();
    }

    private static void accept() {
        while (true) {
            try {
                SocketChannel host = controller.accept();
                Thread.ofVirtual().start(() -> serve(host));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void serve(SocketChannel host) {
        try (host) {
            ByteBuffer in = ByteBuffer.allocate(64 * 1024);
            in.limit(IcReq.LENGTH);
            while (in.hasRemaining()) {
                if (host.read(in) < 0) {
                    return;
                }
            }
            IcReq request = IcReq.decode(MemorySegment.ofArray(in.array()));
            byte[] icResp = new byte[IcReq.LENGTH];
            new IcResp(IcReq.PFV_1_0, 0, request.headerDigest(), request.dataDigest(), MAX_H2C_DATA)
                    .encode(MemorySegment.ofArray(icResp));
            ByteBuffer out = ByteBuffer.wrap(icResp);
            while (out.hasRemaining()) {
                host.write(out);
            }
            do {
                in.clear(); // whatever the host sends after: taken and dropped
            } while (host.read(in) >= 0);
        } catch (IOException e) {
            // the host went away: nothing to take any more
        }
    }
}
