package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapFailureReason;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.target.AuthOutcome;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.RdmaTransport;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import io.nvmf4j.target.rdma.TransportObserver;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DH-HMAC-CHAP end to end: the host library against the Java target over softiwarp on 127.0.0.1, every hash with
 * the null, ffdhe2048 and ffdhe8192 groups, uni- and bidirectional, on the admin queue and every I/O queue, I/O
 * verified afterwards; wrong, missing and wrong controller keys refused with the reason.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AuthenticationAgainstJavaTargetTest {

    static final Nqn SUBNQN = Nqn.parse("nqn.2026-12.io.nvmf4j:auth-e2e");
    static final SecureRandom RANDOM = new SecureRandom();
    static final DhchapSecret HOST_KEY = DhchapSecret.generate(1, 32, RANDOM);
    static final DhchapSecret CTRL_KEY = DhchapSecret.generate(3, 64, RANDOM);

    private NvmeTarget target;
    private RdmaTransport transport;
    private InetSocketAddress address;
    private Subsystem subsystem;
    private final HostIdentity host = HostIdentity.generate();
    private final List<AuthOutcome> outcomes = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startTarget() throws Exception {
        target = new NvmeTarget();
        target.authenticationObserver(outcomes::add);
        Port port = Port.rdma(1, "127.0.0.1", "0").build();
        subsystem = Subsystem.builder(SUBNQN).serial("NVMF4JAUTH001")
                .allowHost(host.hostNqn().value(), DhchapKeys.of(HOST_KEY, CTRL_KEY)).build();
        subsystem.addNamespace(io.nvmf4j.target.SubsystemNamespace.of(1, RamBackend.allocate(1 << 20, 512)));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        transport = RdmaTransport.open(target, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(8L << 20).completionQueueEntries(4096)
                .build(), TransportObserver.NONE);
        address = new InetSocketAddress("127.0.0.1", transport.listen(port).getPort());
    }

    @AfterEach
    void stopTarget() {
        transport.close();
        target.close();
    }

    private ConnectOptions.Builder options(int queues) {
        return ConnectOptions.builder(address, SUBNQN).host(host).provider("softiwarp").ioQueues(queues)
                .queueSize(16).commandTimeout(Duration.ofSeconds(15)).bufferSize(16384).buffersPerQueue(8)
                .ctrlLossTimeout(Duration.ZERO);
    }

    private static void writeAndReadBack(NvmeController c, long seed) throws Exception {
        byte[] data = new byte[8192];
        new Random(seed).nextBytes(data);
        Namespace ns = c.namespace(1).orElseThrow();
        ns.write(8, 16, MemorySegment.ofArray(data));
        byte[] back = new byte[8192];
        ns.read(8, 16, MemorySegment.ofArray(back));
        assertArrayEquals(data, back);
    }

    @Test
    void everyHashWithNullFfdhe2048AndFfdhe8192UniAndBidirectionalThenIo() throws Exception {
        int connects = 0;
        for (DhchapHash h : DhchapHash.values()) {
            for (DhchapDhGroup g : List.of(DhchapDhGroup.NULL, DhchapDhGroup.FFDHE2048, DhchapDhGroup.FFDHE8192)) {
                for (boolean bidi : new boolean[] {false, true}) {
                    subsystem.allowHost(host.hostNqn().value(),
                            new DhchapKeys(HOST_KEY, CTRL_KEY, Set.of(h), Set.of(g)));
                    try (NvmeController c = NvmeController.connect(options(1).dhchapSecret(HOST_KEY)
                            .dhchapCtrlSecret(bidi ? CTRL_KEY : null).build())) {
                        assertEquals(ControllerState.LIVE, c.state(), h + " " + g + " " + bidi);
                        writeAndReadBack(c, connects);
                    }
                    connects++;
                }
            }
        }
        // admin + one I/O queue per connect
        assertEquals(2L * connects, outcomes.stream().filter(o -> o == AuthOutcome.SUCCESS).count());
        assertFalse(outcomes.stream().anyMatch(o -> o != AuthOutcome.SUCCESS), outcomes.toString());
    }

    @Test
    void everyIoQueueAuthenticatesAndReauthenticationKeepsTheControllerUsable() throws Exception {
        try (NvmeController c = NvmeController.connect(options(3).dhchapSecret(HOST_KEY)
                .dhchapCtrlSecret(CTRL_KEY).dhchapDhGroups(Set.of(DhchapDhGroup.FFDHE2048)).build())) {
            assertEquals(3, c.ioQueueCount());
            assertEquals(4, outcomes.size(), "admin and three I/O queues");
            writeAndReadBack(c, 1);
            c.reauthenticate();
            assertEquals(5, outcomes.size());
            writeAndReadBack(c, 2);
        }
    }

    @Test
    void wrongHostKeyIsRefusedWithTheControllersReason() {
        NvmfAuthenticationException e = assertThrows(NvmfAuthenticationException.class,
                () -> NvmeController.connect(options(1).dhchapSecret(DhchapSecret.generate(1, 32, RANDOM)).build()));
        assertEquals(DhchapFailureReason.FAILED, e.reason());
        assertTrue(e.getMessage().contains("AUTH_Failure1"), e.getMessage());
        assertFalse(e.getMessage().contains(HOST_KEY.format()));
    }

    @Test
    void missingHostKeyIsRefused() {
        NvmfAuthenticationException e = assertThrows(NvmfAuthenticationException.class,
                () -> NvmeController.connect(options(1).build()));
        assertTrue(e.getMessage().contains("requires DH-HMAC-CHAP"), e.getMessage());
    }

    @Test
    void wrongControllerKeyIsRefusedByTheHost() {
        NvmfAuthenticationException e = assertThrows(NvmfAuthenticationException.class,
                () -> NvmeController.connect(options(1).dhchapSecret(HOST_KEY)
                        .dhchapCtrlSecret(DhchapSecret.generate(3, 64, RANDOM)).build()));
        assertEquals(DhchapFailureReason.FAILED, e.reason());
        assertTrue(e.getMessage().contains("wrong controller key"), e.getMessage());
    }

    @Test
    void controllerKeyGivenButTargetHasNoneForTheHostIsRefused() {
        subsystem.allowHost(host.hostNqn().value(), null);
        // the target asks for nothing, but a controller secret means "the controller must prove itself"
        NvmfAuthenticationException e = assertThrows(NvmfAuthenticationException.class,
                () -> NvmeController.connect(options(1).dhchapSecret(HOST_KEY).dhchapCtrlSecret(CTRL_KEY).build()));
        assertTrue(e.getMessage().contains("AUTH_Failure1"), e.getMessage());
    }

    @Test
    void hostSecretGivenButNotAskedConnectsWithoutAuthenticationLikeLinux() throws Exception {
        subsystem.allowHost(host.hostNqn().value(), null);
        try (NvmeController c = NvmeController.connect(options(1).dhchapSecret(HOST_KEY).build())) {
            writeAndReadBack(c, 3);
        }
        assertTrue(outcomes.isEmpty());
    }
}
