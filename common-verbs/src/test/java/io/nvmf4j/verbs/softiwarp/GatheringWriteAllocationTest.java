package io.nvmf4j.verbs.softiwarp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Why the Transmitter copies FPDUs into an outbox instead of gathering header, payload and trailer into one write
 * (package-info, bench/README.md "The run on an idle machine"): on JDK 25 a gathering socket write allocates for
 * every piece that is a view of a MemorySegment (sun.nio.ch.IOUtil keeps the segment's scope alive with a Releaser
 * and a LinkedRunnable), and nothing for slices of a ByteBuffer.allocateDirect buffer, which has no scope. This
 * pins both down, so that a JDK that changes either shows up here: registering data buffers from direct
 * ByteBuffers is what a gathering transmitter would need.
 */
@Timeout(60)
class GatheringWriteAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WRITES = 20_000;

    private ServerSocketChannel listener;
    private SocketChannel sender;
    private SocketChannel receiver;
    private final ByteBuffer header = ByteBuffer.allocateDirect(32);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8);
    private final ByteBuffer sink = ByteBuffer.allocateDirect(1 << 16);
    private final ByteBuffer[] pieces = new ByteBuffer[3];

    @BeforeEach
    void connect() throws IOException {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        sender = SocketChannel.open(listener.getLocalAddress());
        receiver = listener.accept();
        receiver.configureBlocking(false);
    }

    @AfterEach
    void close() throws IOException {
        sender.close();
        receiver.close();
        listener.close();
    }

    @Test
    void aGatheringWriteOfDirectBufferSlicesAllocatesNothing() throws IOException {
        ByteBuffer region = ByteBuffer.allocateDirect(1 << 20);
        gatheredWrites(region, WRITES); // warm up: compiled code allocates what it will allocate
        long bytes = gatheredWrites(region, WRITES);
        assertTrue(bytes < WRITES / 10, bytes + " bytes allocated by " + WRITES + " gathering writes");
    }

    @Test
    void aGatheringWriteOfASegmentViewAllocatesPerWrite() throws IOException {
        try (Arena arena = Arena.ofShared()) {
            ByteBuffer region = arena.allocate(1 << 20).asByteBuffer();
            gatheredWrites(region, WRITES);
            long bytes = gatheredWrites(region, WRITES);
            assertTrue(bytes >= 16L * WRITES, bytes + " bytes allocated by " + WRITES + " gathering writes of a"
                    + " segment view: if this JDK no longer allocates here, the Transmitter could gather (see above)");
        }
    }

    /** {@code n} writes of an 18-byte header, 4 KiB of {@code region} and a 4-byte trailer; bytes allocated. */
    private long gatheredWrites(ByteBuffer region, int n) throws IOException {
        long tid = Thread.currentThread().threadId();
        long before = THREADS.getThreadAllocatedBytes(tid);
        long sent = 0;
        long received = 0;
        for (int i = 0; i < n; i++) {
            header.clear().limit(18);
            region.clear().position(4096).limit(8192);
            trailer.clear().limit(4);
            pieces[0] = header;
            pieces[1] = region;
            pieces[2] = trailer;
            while (header.hasRemaining() || region.hasRemaining() || trailer.hasRemaining()) {
                sent += sender.write(pieces, 0, 3);
                received += drain();
            }
        }
        while (received < sent) {
            received += drain();
        }
        long allocated = THREADS.getThreadAllocatedBytes(tid) - before;
        assertEquals(sent, received);
        return allocated;
    }

    private int drain() throws IOException {
        int total = 0;
        int n;
        sink.clear();
        while ((n = receiver.read(sink)) > 0) {
            total += n;
            sink.clear();
        }
        return total;
    }
}
