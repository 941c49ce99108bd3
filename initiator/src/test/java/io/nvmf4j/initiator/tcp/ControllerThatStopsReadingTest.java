package io.nvmf4j.initiator.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.ControllerState;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.target.tcp.TcpTransport;
import io.nvmf4j.target.tcp.TcpTransportOptions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A controller that stops reading its socket but keeps the connection open (its receive window shut): the host's
 * send gives up after the command timeout instead of waiting for ever, the queue fails as on a socket error, the
 * controller reconnects and sends the writes again; nothing is reported written before the controller acknowledged
 * it (the data is read back). The proxy between host and controller stops reading after the host's next command.
 * The command timeout is short so that the bound shows within a test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerThatStopsReadingTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
    /** SO_RCVBUF of the stalled side: the controller's end of the pipe holds little. */
    private static final int SMALL_RECEIVE_BUFFER = 4096;
    /**
     * One command (MDTS 16 MiB) larger than the host's socket send buffer can grow to (the kernel's tcp_wmem
     * maximum, 4 MiB by default): its H2CData cannot all leave the host.
     */
    private static final int LARGE_WRITE = 12 << 20;

    private NvmeTarget target;
    private TcpTransport transport;
    private InetSocketAddress address;
    private CorruptingTcpProxy proxy;
    private final List<String> log = new CopyOnWriteArrayList<>();
    /**
     * Held for the test's life: the LogManager keeps loggers only weakly, so a logger looked up, given the handler
     * and dropped may be collected, and the library's next message goes to a new logger without it (the check on
     * the log then failed now and then in runs of many test classes).
     */
    private final Logger hostLog = Logger.getLogger(NvmeController.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            log.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        Port port = Port.tcp(1, "127.0.0.1", "0").mdts(12).build();
        Subsystem subsystem = Subsystem.builder(HostOverTcpAgainstJavaTargetTest.SUBNQN).serial("NVMF4JTCPH002")
                .model("nvmf4j tcp host").allowAnyHost(true).build();
        subsystem.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(32L << 20, 512)));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        transport = TcpTransport.open(target, TcpTransportOptions.builder().pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(32L << 20).build(), TransportObserver.NONE);
        address = new InetSocketAddress("127.0.0.1", transport.listen(port).getPort());
        proxy = new CorruptingTcpProxy(address, SMALL_RECEIVE_BUFFER);
        hostLog.addHandler(capture);
    }

    @AfterEach
    void stopTarget() throws Exception {
        hostLog.removeHandler(capture);
        proxy.close();
        transport.close();
        target.close();
    }

    private NvmeController connect() throws Exception {
        assumeTrue(largestSendBuffer() <= LARGE_WRITE / 2, "the kernel's tcp_wmem maximum ("
                + largestSendBuffer() + " bytes) could take the whole write: the pipe would not fill");
        return NvmeController.connect(ConnectOptions.builder(proxy.address(), HostOverTcpAgainstJavaTargetTest.SUBNQN)
                .host(HostIdentity.generate()).transport("tcp").ioQueues(1).queueSize(16)
                .keepAliveTimeout(Duration.ZERO).reconnectDelay(Duration.ofMillis(100))
                .commandTimeout(COMMAND_TIMEOUT).build());
    }

    /**
     * A large write by R2T: the completion thread answers the R2T with H2CData the controller never takes. The send
     * gives up after the command timeout, the queue reconnects, and the write, sent again, completes.
     */
    @Test
    void anH2cDataTheControllerNeverTakesFailsTheQueueAndTheWriteIsSentAgain() throws Exception {
        try (NvmeController c = connect(); IoBuffer buffer = c.allocateBuffer(LARGE_WRITE)) {
            Namespace ns = c.namespace(1).orElseThrow();
            byte[] data = random(LARGE_WRITE, 1);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, buffer.segment(), 0, data.length);
            proxy.stopReadingAfterNextCommand();
            long start = System.nanoTime();
            ns.writeAsync(0, LARGE_WRITE / 512, buffer, 0).get(20, TimeUnit.SECONDS);
            assertTrue(System.nanoTime() - start >= COMMAND_TIMEOUT.toNanos() * 9 / 10,
                    "completed before the send could time out: the pipe never filled");
            assertReconnectedAfterTheSendTimedOut(c);
            byte[] back = new byte[data.length];
            ns.read(0, back.length / 512, MemorySegment.ofArray(back));
            assertArrayEquals(data, back);
        }
    }

    /**
     * While the completion thread is held by the full socket, a thread submitting a write (in the capsule) waits for
     * the socket at most the command timeout, never for good; its write completes once the queue is back.
     */
    @Test
    void aSubmittingThreadIsHeldAtMostTheCommandTimeout() throws Exception {
        try (NvmeController c = connect(); IoBuffer buffer = c.allocateBuffer(LARGE_WRITE)) {
            Namespace ns = c.namespace(1).orElseThrow();
            proxy.stopReadingAfterNextCommand();
            CompletableFuture<Void> large = ns.writeAsync(0, LARGE_WRITE / 512, buffer, 0);
            Thread.sleep(COMMAND_TIMEOUT.toMillis() / 4); // the R2T is answered meanwhile, the socket fills
            byte[] small = random(4096, 2);
            long start = System.nanoTime();
            CompletableFuture<Void> write = ns.writeAsync(LARGE_WRITE / 512, 8, MemorySegment.ofArray(small));
            long submitting = System.nanoTime() - start;
            // the bound counts from the last byte taken: the kernel may still grow the host's send buffer a little
            // after the controller stopped reading, so allow a few timeouts, not one
            assertTrue(submitting < COMMAND_TIMEOUT.toNanos() * 5, "submitting took "
                    + TimeUnit.NANOSECONDS.toMillis(submitting) + " ms");
            write.get(20, TimeUnit.SECONDS);
            large.get(20, TimeUnit.SECONDS);
            assertReconnectedAfterTheSendTimedOut(c);
            byte[] back = new byte[4096];
            ns.read(LARGE_WRITE / 512, 8, MemorySegment.ofArray(back));
            assertArrayEquals(small, back);
        }
    }

    private void assertReconnectedAfterTheSendTimedOut(NvmeController c) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.state() != ControllerState.LIVE && System.nanoTime() - until < 0) {
            Thread.sleep(5);
        }
        assertEquals(ControllerState.LIVE, c.state());
        assertTrue(log.stream().anyMatch(m -> m.contains("the controller took no data for 1 s")), String.valueOf(log));
    }

    /** The kernel's tcp_wmem maximum (Linux; 4 MiB, its default, where it cannot be read). */
    private static long largestSendBuffer() {
        try {
            String[] wmem = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_wmem")).trim().split("\\s+");
            return Long.parseLong(wmem[2]);
        } catch (IOException | RuntimeException e) {
            return 4L << 20;
        }
    }

    private static byte[] random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }
}
