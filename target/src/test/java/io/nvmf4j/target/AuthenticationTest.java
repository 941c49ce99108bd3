package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.HOST;
import static io.nvmf4j.target.TargetFixture.OTHER_HOST;
import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.auth.AuthFailure;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.auth.AuthNegotiate;
import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapException;
import io.nvmf4j.protocol.auth.DhchapFailureReason;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapHostSession;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapReply;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.protocol.auth.DhchapSuccess2;
import io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand;
import io.nvmf4j.protocol.fabrics.AuthenticationSendCommand;
import io.nvmf4j.protocol.fabrics.ConnectResponse;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DH-HMAC-CHAP on the target core (nvmet's fabrics-cmd-auth.c behaviour): AUTHREQ.ATR in the Connect response,
 * Authentication Required (0x191 | DNR) for every other command until the queue authenticated, the SQE checks,
 * failure and timeout tearing the controller down, metrics outcomes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AuthenticationTest {

    static final SecureRandom RANDOM = new SecureRandom();
    static final DhchapSecret KEY = DhchapSecret.generate(1, 32, RANDOM);
    static final DhchapSecret CTRL_KEY = DhchapSecret.generate(2, 48, RANDOM);
    /** Linux: NVME_SC_AUTH_REQUIRED | NVME_STATUS_DNR. */
    static final int AUTH_REQUIRED_DNR = 0x4191;

    private final List<AuthOutcome> outcomes = new CopyOnWriteArrayList<>();
    private final TargetFixture fx = new TargetFixture(Subsystem.builder(Nqn.parse(SUBNQN)).serial("AUTH1")
            .allowHost(HOST, DhchapKeys.of(KEY, CTRL_KEY)).allowHost(OTHER_HOST));

    {
        fx.target.authenticationObserver(outcomes::add);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    // ---- a host driving the exchange with Authentication Send / Receive capsules ----

    static Request send(LoopHost host, LoopHost.Queue q, AuthMessage m) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AuthenticationSendCommand.dhchap(CommandId.of(0), DataBlockDescriptor.inCapsule(0, m.encodedSize()),
                m.encodedSize()).encode(sqe);
        MemorySegment data = host.buffer(m.encodedSize());
        m.encode(data);
        return host.submit(q, sqe, data);
    }

    static MemorySegment receive(LoopHost host, LoopHost.Queue q) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AuthenticationReceiveCommand.dhchap(CommandId.of(0), DataBlockDescriptor.inCapsule(0, 4096), 4096)
                .encode(sqe);
        MemorySegment data = host.buffer(4096);
        data.fill((byte) 0x5A);
        Request r = host.submit(q, sqe, data);
        assertEquals(0, r.cqe().statusField(), "Authentication Receive status");
        return data;
    }

    /** A whole transaction as Linux nvme_queue_auth_work() runs it; the host's exception, or null. */
    static DhchapException authenticate(LoopHost host, LoopHost.Queue q, DhchapKeys keys, int tid) {
        DhchapHostSession s = new DhchapHostSession(keys, host.hostNqn, SUBNQN, tid, RANDOM);
        try {
            assertEquals(0, send(host, q, s.start()).cqe().statusField());
            DhchapReply reply = s.onChallenge(receive(host, q));
            assertEquals(0, send(host, q, reply).cqe().statusField());
            DhchapSuccess2 s2 = s.onSuccess1(receive(host, q));
            if (s2 != null) {
                assertEquals(0, send(host, q, s2).cqe().statusField());
            }
            return null;
        } catch (DhchapException e) {
            if (s.failure2() != null) {
                send(host, q, s.failure2());
            }
            return e;
        }
    }

    static Request readBlock(LoopHost host, LoopHost.Queue q) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        ReadCommand.create(sqe, 1, 0, 1);
        return host.submit(q, sqe, host.buffer(512));
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    // ---- tests ----

    @Test
    void connectOfAHostWithAKeySetsAuthreqAtrAndNothingElseRunsBeforeAuthentication() {
        LoopHost host = fx.host();
        Request connect = host.connectAdmin(SUBNQN, 0);
        assertEquals(0, connect.cqe().statusField());
        assertTrue(ConnectResponse.authenticationRequired(connect.cqe().dw0()));
        Request get = host.submit(host.admin, LoopHost.propertyGet(Controller.REG_CAP, true));
        assertEquals(AUTH_REQUIRED_DNR, get.cqe().statusField());
        Request set = host.submit(host.admin, LoopHost.propertySet(Controller.REG_CC, LoopHost.CC_ENABLE_NVM));
        assertEquals(AUTH_REQUIRED_DNR, set.cqe().statusField());
        assertEquals(0, host.controller().cc(), "Property Set did not run");

        assertNull(authenticate(host, host.admin, DhchapKeys.of(KEY, CTRL_KEY), 1));
        host.setProperty(Controller.REG_CC, LoopHost.CC_ENABLE_NVM);
        assertEquals(List.of(AuthOutcome.SUCCESS), outcomes);

        // every I/O queue again
        Request io = host.connectIo(SUBNQN, 1, 31);
        assertEquals(0, io.cqe().statusField());
        assertTrue(ConnectResponse.authenticationRequired(io.cqe().dw0()));
        LoopHost.Queue q = host.ioQueues.get(1);
        assertEquals(AUTH_REQUIRED_DNR, readBlock(host, q).cqe().statusField());
        assertNull(authenticate(host, q, DhchapKeys.of(KEY, CTRL_KEY), 2));
        assertEquals(0, readBlock(host, q).cqe().statusField());
    }

    @Test
    void hostWithoutKeyGetsNoAuthreq() {
        LoopHost other = fx.host(OTHER_HOST);
        Request connect = other.connectAdmin(SUBNQN, 0);
        assertFalse(ConnectResponse.authenticationRequired(connect.cqe().dw0()));
        other.setProperty(Controller.REG_CC, LoopHost.CC_ENABLE_NVM);
    }

    @Test
    void everyHashAndGroupUniAndBidirectional() {
        for (DhchapHash h : DhchapHash.values()) {
            for (DhchapDhGroup g : List.of(DhchapDhGroup.NULL, DhchapDhGroup.FFDHE2048, DhchapDhGroup.FFDHE8192)) {
                for (boolean bidi : new boolean[] {false, true}) {
                    fx.subsystem.allowHost(HOST, new DhchapKeys(KEY, CTRL_KEY, Set.of(h), Set.of(g)));
                    LoopHost host = fx.host();
                    host.connectAdmin(SUBNQN, 0);
                    assertNull(authenticate(host, host.admin, DhchapKeys.of(KEY, bidi ? CTRL_KEY : null), 3),
                            h + " " + g + " " + bidi);
                    host.setProperty(Controller.REG_CC, LoopHost.CC_ENABLE_NVM);
                }
            }
        }
    }

    @Test
    void wrongKeyIsRefusedAndTheControllerTornDown() throws Exception {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        DhchapException e = authenticate(host, host.admin, DhchapKeys.of(DhchapSecret.generate(1, 32, RANDOM)), 1);
        assertEquals(DhchapFailureReason.FAILED, e.reason());
        assertTrue(e.reportedByPeer());
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS), "controller failed");
        assertEquals(List.of(AuthOutcome.FAILED), outcomes);
        assertEquals(AUTH_REQUIRED_DNR,
                host.submit(host.admin, LoopHost.propertyGet(Controller.REG_CAP, true)).cqe().statusField());
    }

    @Test
    void wrongControllerKeyIsRefusedByTheHostAndItsFailure2EndsTheController() throws Exception {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        DhchapException e = authenticate(host, host.admin,
                DhchapKeys.of(KEY, DhchapSecret.generate(2, 48, RANDOM)), 1);
        assertEquals(DhchapFailureReason.FAILED, e.reason());
        assertFalse(e.reportedByPeer());
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(AuthOutcome.FAILED), outcomes);
    }

    @Test
    void hostThatNeverAuthenticatesIsDroppedAfterTheTimeout() throws Exception {
        fx.target.authenticationTimeout(Duration.ofMillis(200));
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        long start = System.nanoTime();
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3));
        assertEquals(List.of(AuthOutcome.TIMEOUT), outcomes);
    }

    /**
     * A Linux host in a slow VM spends seconds on its first ffdhe8192 Reply (DH work and the kernel's crypto
     * self-test), during which it may send nothing: keep-alive must not end the controller before the queue has
     * authenticated (only the authentication deadline may), and must run from then on.
     */
    @Test
    void hostSlowerThanKatoBetweenChallengeAndReplyAuthenticatesAndKeepAliveRunsFromThen() throws Exception {
        LoopHost host = fx.host();
        assertEquals(0, host.connectAdmin(SUBNQN, 1000).cqe().statusField());
        DhchapHostSession s = new DhchapHostSession(DhchapKeys.of(KEY, CTRL_KEY), HOST, SUBNQN, 1, RANDOM);
        assertEquals(0, send(host, host.admin, s.start()).cqe().statusField());
        DhchapReply reply = s.onChallenge(receive(host, host.admin));

        // the host's DH work: longer than two keep-alive periods (a silent controller is ended after 2 x KATO)
        assertFalse(host.admin.transport().disconnected.await(3500, TimeUnit.MILLISECONDS),
                "keep-alive ended a controller whose admin queue was still authenticating");

        assertEquals(0, send(host, host.admin, reply).cqe().statusField());
        DhchapSuccess2 s2 = s.onSuccess1(receive(host, host.admin));
        assertEquals(0, send(host, host.admin, s2).cqe().statusField());
        assertEquals(List.of(AuthOutcome.SUCCESS), outcomes);
        // authenticated: from now on a silent host loses its controller after KATO as any other
        assertTrue(host.admin.transport().disconnected.await(10, TimeUnit.SECONDS),
                "keep-alive runs once the admin queue authenticated");
        assertEquals(1, host.admin.transport().disconnects.get());
    }

    @Test
    void peerThatStopsAfterTheChallengeIsDroppedAfterTheTimeout() throws Exception {
        fx.target.authenticationTimeout(Duration.ofMillis(300));
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        DhchapHostSession s = new DhchapHostSession(DhchapKeys.of(KEY), HOST, SUBNQN, 1, RANDOM);
        send(host, host.admin, s.start());
        receive(host, host.admin);
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(AuthOutcome.TIMEOUT), outcomes);
    }

    @Test
    void authenticationSendChecksSecpSpspAndTlLikeNvmet() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        for (int[] bad : new int[][] {{0xEA, 1, 1, 72, 43}, {0xE9, 0, 1, 72, 41}, {0xE9, 1, 2, 72, 42},
                {0xE9, 1, 1, 0, 44}, {0xE9, 1, 1, 1 << 20, 44}}) {
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            new AuthenticationSendCommand(CommandId.of(0), DataBlockDescriptor.inCapsule(0, bad[3]), bad[0], bad[1],
                    bad[2], bad[3]).encode(sqe);
            Request r = host.submit(host.admin, sqe, host.buffer(Math.min(bad[3], 4096)));
            assertEquals(StatusCode.INVALID_FIELD.withDnr().toField() | 0x2000 /* More: error log entry */,
                    r.cqe().statusField() | 0x2000);
            assertEquals(bad[4], r.errorLocation());
        }
        // Authentication Receive AL 0
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        new AuthenticationReceiveCommand(CommandId.of(0), DataBlockDescriptor.inCapsule(0, 0), 0xE9, 1, 1, 0)
                .encode(sqe);
        Request r = host.submit(host.admin, sqe, MemorySegment.NULL);
        assertEquals(44, r.errorLocation());
    }

    @Test
    void keylessHostThatTriesToAuthenticateIsRefused() throws Exception {
        LoopHost other = fx.host(OTHER_HOST);
        other.connectAdmin(SUBNQN, 0);
        DhchapException e = authenticate(other, other.admin, DhchapKeys.of(KEY), 4);
        assertTrue(e.reportedByPeer());
        assertEquals(List.of(AuthOutcome.NO_KEY), outcomes);
        assertTrue(other.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
    }

    @Test
    void keylessHostIsRefusedWithItsOwnTransactionId() {
        // nvmet_auth_failure1() answers with the T_ID the host's Negotiate carried (bytes 5:4, little-endian)
        LoopHost other = fx.host(OTHER_HOST);
        other.connectAdmin(SUBNQN, 0);
        assertEquals(0, send(other, other.admin, AuthNegotiate.of(0xA51C, List.of(DhchapHash.SHA256),
                List.of(DhchapDhGroup.NULL))).cqe().statusField());
        MemorySegment answer = receive(other, other.admin);
        // AUTH_Failure1 (struct nvmf_auth_dhchap_failure_data): 00 f1 0000 t_id(1c a5) rescode 01 rescode_exp 01
        assertEquals("00f100001ca50101", hex(answer.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)));
        AuthFailure f = assertInstanceOf(AuthFailure.class, AuthMessage.decode(answer));
        assertTrue(f.failure1());
        assertEquals(0xA51C, f.tid());
    }

    @Test
    void reauthenticationOnTheAdminQueueKeepsItUsable() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        assertNull(authenticate(host, host.admin, DhchapKeys.of(KEY), 1));
        host.setProperty(Controller.REG_CC, LoopHost.CC_ENABLE_NVM);
        assertNull(authenticate(host, host.admin, DhchapKeys.of(KEY, CTRL_KEY), 2));
        assertEquals(1, host.getProperty(Controller.REG_CSTS, false) & 1);
        assertEquals(List.of(AuthOutcome.SUCCESS, AuthOutcome.SUCCESS), outcomes);
    }

    @Test
    void receiveOutOfOrderFailsWithFailure1() throws Exception {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        AuthFailure f = assertInstanceOf(AuthFailure.class, AuthMessage.decode(receive(host, host.admin)));
        assertTrue(f.failure1());
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(AuthOutcome.FAILED), outcomes);
    }

    @Test
    void receiveBufferCarriesNothingButTheMessage() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        DhchapHostSession s = new DhchapHostSession(DhchapKeys.of(KEY), HOST, SUBNQN, 1, RANDOM);
        send(host, host.admin, s.start());
        MemorySegment d = receive(host, host.admin); // filled with 5Ah before
        int size = AuthMessage.decode(d).encodedSize();
        assertTrue(Wire.isZero(d, size, 4096 - size), "an earlier command's bytes must not leak");
    }

    @Test
    void peerThatRestartsTheExchangeAgainAndAgainIsCutOff() throws Exception {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        for (int i = 0; i < QueueAuthentication.MAX_NEGOTIATIONS_BEFORE_SUCCESS; i++) {
            DhchapHostSession s = new DhchapHostSession(DhchapKeys.of(KEY), HOST, SUBNQN, i, RANDOM);
            send(host, host.admin, s.start());
            receive(host, host.admin); // a Challenge, a DH key pair on the target each time
        }
        assertTrue(outcomes.isEmpty());
        DhchapHostSession last = new DhchapHostSession(DhchapKeys.of(KEY), HOST, SUBNQN, 9, RANDOM);
        send(host, host.admin, last.start());
        assertEquals(List.of(AuthOutcome.FAILED), outcomes);
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
    }
}
