package io.nvmf4j.protocol.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The host and controller state machines against each other, and against hostile or broken peers. */
class DhchapSessionsTest {

    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
    static final String SUB = "nqn.2024-01.io.nvmf4j:auth";
    static final SecureRandom RANDOM = new SecureRandom();
    static final DhchapSecret HOST_KEY = DhchapSecret.generate(1, 32, RANDOM);
    static final DhchapSecret CTRL_KEY = DhchapSecret.generate(3, 64, RANDOM);

    static MemorySegment wire(AuthMessage m) {
        return MemorySegment.ofArray(m.toBytes());
    }

    /** Runs a whole transaction; returns the host's exception or null. */
    static DhchapException run(DhchapHostSession host, DhchapControllerSession ctrl) {
        try {
            assertEquals(DhchapControllerSession.SendResult.ACCEPTED, ctrl.onSend(wire(host.start())));
            DhchapReply reply = host.onChallenge(wire(ctrl.onReceive()));
            assertEquals(DhchapControllerSession.SendResult.ACCEPTED, ctrl.onSend(wire(reply)));
            DhchapSuccess2 s2 = host.onSuccess1(wire(ctrl.onReceive()));
            if (s2 != null) {
                assertEquals(DhchapControllerSession.SendResult.ACCEPTED, ctrl.onSend(wire(s2)));
            }
            return null;
        } catch (DhchapException e) {
            if (host.failure2() != null) {
                assertEquals(DhchapControllerSession.SendResult.TERMINATE, ctrl.onSend(wire(host.failure2())));
            }
            return e;
        }
    }

    static DhchapControllerSession controller(DhchapKeys keys) {
        return new DhchapControllerSession(keys, HOST, SUB, RANDOM);
    }

    static DhchapHostSession host(DhchapKeys keys, int tid) {
        return new DhchapHostSession(keys, HOST, SUB, tid, RANDOM);
    }

    @Test
    void everyHashWithNullFfdhe2048AndFfdhe8192UniAndBidirectional() {
        for (DhchapHash h : DhchapHash.values()) {
            for (DhchapDhGroup g : List.of(DhchapDhGroup.NULL, DhchapDhGroup.FFDHE2048, DhchapDhGroup.FFDHE8192)) {
                for (boolean bidi : new boolean[] {false, true}) {
                    DhchapKeys target = new DhchapKeys(HOST_KEY, CTRL_KEY, Set.of(h), Set.of(g));
                    DhchapKeys initiator = DhchapKeys.of(HOST_KEY, bidi ? CTRL_KEY : null);
                    DhchapHostSession host = host(initiator, 7);
                    DhchapControllerSession ctrl = controller(target);
                    assertNull(run(host, ctrl), h + " " + g + " bidi=" + bidi);
                    assertTrue(host.authenticated());
                    assertTrue(ctrl.authenticated());
                    assertEquals(h, ctrl.hash());
                    assertEquals(g, host.dhGroup());
                    assertEquals(bidi, ctrl.bidirectional());
                    assertEquals(DhchapControllerSession.State.AUTHENTICATED, ctrl.state());
                }
            }
        }
    }

    @Test
    void defaultsAreNvmetsSha256AndNullGroupWithALinuxOffer() {
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        assertNull(run(host(DhchapKeys.of(HOST_KEY), 1), ctrl));
        assertEquals(DhchapHash.SHA256, ctrl.hash());
        assertEquals(DhchapDhGroup.NULL, ctrl.dhGroup());
    }

    @Test
    void wrongHostKeyIsRefusedWithFailure1Failed() {
        DhchapHostSession host = host(DhchapKeys.of(DhchapSecret.generate(1, 32, RANDOM)), 1);
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        DhchapException e = run(host, ctrl);
        assertNotNull(e);
        assertTrue(e.reportedByPeer());
        assertEquals(DhchapFailureReason.FAILED, e.reason());
        assertTrue(ctrl.failed());
        assertFalse(ctrl.authenticated());
        assertTrue(ctrl.failureDetail().contains("host response mismatch"));
    }

    @Test
    void wrongControllerKeyIsRefusedByTheHostWithFailure2() {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY, DhchapSecret.generate(3, 64, RANDOM)), 1);
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY, CTRL_KEY));
        DhchapException e = run(host, ctrl);
        assertNotNull(e);
        assertFalse(e.reportedByPeer());
        assertEquals(DhchapFailureReason.FAILED, e.reason());
        assertFalse(host.authenticated());
        // the host's AUTH_Failure2 ended the controller's side too
        assertTrue(ctrl.failed());
        assertFalse(ctrl.authenticated());
    }

    @Test
    void bidirectionalRequestWithoutControllerKeyOnTheTargetIsRefused() {
        DhchapException e = run(host(DhchapKeys.of(HOST_KEY, CTRL_KEY), 1), controller(DhchapKeys.of(HOST_KEY)));
        assertNotNull(e);
        assertTrue(e.reportedByPeer());
        assertEquals(DhchapFailureReason.FAILED, e.reason());
    }

    @Test
    void success1WithoutResponseIsRefusedWhenBidirectionalWasRequested() throws Exception {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY, CTRL_KEY), 3);
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY, CTRL_KEY));
        ctrl.onSend(wire(host.start()));
        ctrl.onSend(wire(host.onChallenge(wire(ctrl.onReceive()))));
        DhchapException e = assertThrows(DhchapException.class,
                () -> host.onSuccess1(wire(new DhchapSuccess1(3, 32, false, new byte[0]))));
        assertEquals(DhchapFailureReason.FAILED, e.reason());
        assertEquals(DhchapFailureReason.FAILED, host.failure2().reason());
    }

    @Test
    void hashOrGroupTheHostIsNotAllowedGivesFailure1WithTheReason() {
        DhchapKeys targetKeys = new DhchapKeys(HOST_KEY, null, Set.of(DhchapHash.SHA512),
                Set.of(DhchapDhGroup.FFDHE2048));
        DhchapException e = run(host(new DhchapKeys(HOST_KEY, null, Set.of(DhchapHash.SHA256), Set.of()), 1),
                controller(targetKeys));
        assertEquals(DhchapFailureReason.HASH_UNUSABLE, e.reason());
        e = run(host(new DhchapKeys(HOST_KEY, null, Set.of(), Set.of(DhchapDhGroup.NULL)), 1),
                controller(targetKeys));
        assertEquals(DhchapFailureReason.DHGROUP_UNUSABLE, e.reason());
    }

    @Test
    void controllerChoosingAHashOrGroupNotOfferedIsRefusedByTheHost() {
        DhchapHostSession host = host(new DhchapKeys(HOST_KEY, null, Set.of(DhchapHash.SHA256),
                Set.of(DhchapDhGroup.NULL)), 5);
        host.start();
        DhchapException e = assertThrows(DhchapException.class, () -> host.onChallenge(wire(
                new DhchapChallenge(5, DhchapHash.SHA512.id(), 0, 1, new byte[64], new byte[0]))));
        assertEquals(DhchapFailureReason.HASH_UNUSABLE, e.reason());
        assertEquals(DhchapFailureReason.HASH_UNUSABLE, host.failure2().reason());

        DhchapHostSession host2 = host(new DhchapKeys(HOST_KEY, null, Set.of(), Set.of(DhchapDhGroup.NULL)), 5);
        host2.start();
        e = assertThrows(DhchapException.class, () -> host2.onChallenge(wire(
                new DhchapChallenge(5, 1, DhchapDhGroup.FFDHE2048.id(), 1, new byte[32], new byte[256]))));
        assertEquals(DhchapFailureReason.DHGROUP_UNUSABLE, e.reason());
    }

    @Test
    void challengeWithWrongTransactionIdOrLengthsIsRefusedByTheHost() {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY), 5);
        host.start();
        DhchapException e = assertThrows(DhchapException.class, () -> host.onChallenge(wire(
                new DhchapChallenge(6, 1, 0, 1, new byte[32], new byte[0]))));
        assertEquals(DhchapFailureReason.INCORRECT_PAYLOAD, e.reason());
        assertEquals(5, host.failure2().tid());

        DhchapHostSession host2 = host(DhchapKeys.of(HOST_KEY), 5);
        host2.start();
        e = assertThrows(DhchapException.class, () -> host2.onChallenge(wire(
                new DhchapChallenge(5, 1, 0, 1, new byte[48], new byte[0]))));
        assertEquals(DhchapFailureReason.INCORRECT_PAYLOAD, e.reason());

        DhchapHostSession host3 = host(DhchapKeys.of(HOST_KEY), 5);
        host3.start();
        e = assertThrows(DhchapException.class, () -> host3.onChallenge(wire(
                new DhchapChallenge(5, 1, 1, 1, new byte[32], new byte[256]))));
        assertEquals(DhchapFailureReason.INCORRECT_PAYLOAD, e.reason()); // g^x = 0 is not a DH value
    }

    @Test
    void messagesOutOfOrderOnTheHostAreIncorrectMessage() throws Exception {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY), 5);
        host.start();
        DhchapException e = assertThrows(DhchapException.class,
                () -> host.onChallenge(wire(new DhchapSuccess1(5, 32, false, new byte[0]))));
        assertEquals(DhchapFailureReason.INCORRECT_MESSAGE, e.reason());
        assertThrows(IllegalStateException.class, () -> host.onSuccess1(wire(new DhchapSuccess2(5))));

        DhchapHostSession fresh = host(DhchapKeys.of(HOST_KEY), 5);
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        ctrl.onSend(wire(fresh.start()));
        AuthMessage challenge = ctrl.onReceive();
        ctrl.onSend(wire(fresh.onChallenge(wire(challenge))));
        // the Challenge replayed where Success1 belongs
        e = assertThrows(DhchapException.class, () -> fresh.onSuccess1(wire(challenge)));
        assertEquals(DhchapFailureReason.INCORRECT_MESSAGE, e.reason());
    }

    @Test
    void failure1FromTheControllerEndsTheHostWithoutFailure2() {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY), 5);
        host.start();
        DhchapException e = assertThrows(DhchapException.class,
                () -> host.onChallenge(wire(AuthFailure.failure1(5, DhchapFailureReason.DHGROUP_UNUSABLE))));
        assertTrue(e.reportedByPeer());
        assertEquals(DhchapFailureReason.DHGROUP_UNUSABLE, e.reason());
        assertNull(host.failure2());
        assertEquals(DhchapHostSession.State.FAILED, host.state());
    }

    @Test
    void replayedReplyIsOutOfOrderAndEndsTheController() throws Exception {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY), 9);
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        ctrl.onSend(wire(host.start()));
        DhchapReply reply = host.onChallenge(wire(ctrl.onReceive()));
        assertEquals(DhchapControllerSession.SendResult.ACCEPTED, ctrl.onSend(wire(reply)));
        assertEquals(DhchapControllerSession.SendResult.TERMINATE, ctrl.onSend(wire(reply)));
        assertEquals(DhchapFailureReason.INCORRECT_MESSAGE, ctrl.failureReason());
        assertFalse(ctrl.authenticated());
    }

    @Test
    void replyRecordedFromAnEarlierTransactionFailsANewOne() throws Exception {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY), 9);
        DhchapControllerSession first = controller(DhchapKeys.of(HOST_KEY));
        first.onSend(wire(host.start()));
        DhchapReply recorded = host.onChallenge(wire(first.onReceive()));

        DhchapControllerSession second = controller(DhchapKeys.of(HOST_KEY));
        second.onSend(wire(AuthNegotiate.of(9, List.of(DhchapHash.SHA256), List.of(DhchapDhGroup.NULL))));
        second.onReceive(); // a fresh C1 and S1
        assertEquals(DhchapControllerSession.SendResult.ACCEPTED, second.onSend(wire(recorded)));
        AuthFailure f = assertInstanceOf(AuthFailure.class, second.onReceive());
        assertEquals(DhchapFailureReason.FAILED, f.reason());
        assertTrue(second.failed());
    }

    @Test
    void replyWithWrongTransactionIdGivesFailure1IncorrectPayload() throws Exception {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY), 9);
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        ctrl.onSend(wire(host.start()));
        DhchapReply reply = host.onChallenge(wire(ctrl.onReceive()));
        DhchapReply otherTid = new DhchapReply(10, reply.response(), false, 0, reply.challenge(), reply.dhValue());
        assertEquals(DhchapControllerSession.SendResult.ACCEPTED, ctrl.onSend(wire(otherTid)));
        AuthFailure f = assertInstanceOf(AuthFailure.class, ctrl.onReceive());
        assertTrue(f.failure1());
        assertEquals(9, f.tid());
        assertEquals(DhchapFailureReason.INCORRECT_PAYLOAD, f.reason());
        assertTrue(ctrl.failed());
    }

    @Test
    void controllerRefusesMessagesOutOfOrder() {
        // Receive before any Negotiate
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        assertInstanceOf(AuthFailure.class, ctrl.onReceive());
        assertTrue(ctrl.failed());
        // Success2 before the Challenge
        DhchapControllerSession c2 = controller(DhchapKeys.of(HOST_KEY));
        c2.onSend(wire(AuthNegotiate.of(1, List.of(DhchapHash.SHA256), List.of(DhchapDhGroup.NULL))));
        assertEquals(DhchapControllerSession.SendResult.TERMINATE, c2.onSend(wire(new DhchapSuccess2(1))));
        // garbage
        DhchapControllerSession c3 = controller(DhchapKeys.of(HOST_KEY));
        assertEquals(DhchapControllerSession.SendResult.TERMINATE,
                c3.onSend(MemorySegment.ofArray(new byte[] {7})));
        assertEquals(DhchapControllerSession.SendResult.TERMINATE,
                c3.onSend(wire(AuthNegotiate.of(1, List.of(DhchapHash.SHA256), List.of(DhchapDhGroup.NULL)))));
    }

    @Test
    void negotiateThatCannotBeServedGivesFailure1WithNvmetsReasons() {
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        ctrl.onSend(wire(new AuthNegotiate(4, 1, 1, 1, List.of(1), List.of(0))));
        assertEquals(DhchapFailureReason.CONCAT_MISMATCH, ((AuthFailure) ctrl.onReceive()).reason());
        ctrl = controller(DhchapKeys.of(HOST_KEY));
        ctrl.onSend(wire(new AuthNegotiate(4, 0, 2, 1, List.of(1), List.of(0))));
        assertEquals(DhchapFailureReason.HASH_UNUSABLE, ((AuthFailure) ctrl.onReceive()).reason());
        ctrl = controller(DhchapKeys.of(HOST_KEY));
        ctrl.onSend(wire(new AuthNegotiate(4, 0, 1, 2, List.of(1), List.of(0))));
        assertEquals(DhchapFailureReason.INCORRECT_PAYLOAD, ((AuthFailure) ctrl.onReceive()).reason());
        ctrl = controller(DhchapKeys.of(HOST_KEY));
        byte[] b = AuthNegotiate.of(4, List.of(DhchapHash.SHA256), List.of(DhchapDhGroup.NULL)).toBytes();
        b[AuthNegotiate.OFFSET_DHLEN] = 60;
        ctrl.onSend(MemorySegment.ofArray(b));
        AuthFailure f = (AuthFailure) ctrl.onReceive();
        assertEquals(DhchapFailureReason.INCORRECT_PAYLOAD, f.reason());
        assertEquals(4, f.tid());
    }

    @Test
    void peerThatStopsMidExchangeExpires() throws Exception {
        DhchapHostSession host = host(DhchapKeys.of(HOST_KEY), 2);
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY));
        ctrl.onSend(wire(host.start()));
        ctrl.onReceive();
        assertTrue(ctrl.inProgress());
        ctrl.expire("no Reply within 10 s");
        assertTrue(ctrl.failed());
        assertFalse(ctrl.authenticated());
        assertEquals("no Reply within 10 s", ctrl.failureDetail());
        host.abort();
        assertEquals(DhchapHostSession.State.FAILED, host.state());
    }

    @Test
    void reauthenticationKeepsTheQueueAuthenticatedAndCountsTransactions() {
        DhchapControllerSession ctrl = controller(DhchapKeys.of(HOST_KEY, CTRL_KEY));
        assertNull(run(host(DhchapKeys.of(HOST_KEY, CTRL_KEY), 1), ctrl));
        assertEquals(1, ctrl.transactions());
        DhchapHostSession again = host(DhchapKeys.of(HOST_KEY, CTRL_KEY), 2);
        ctrl.onSend(wire(again.start()));
        assertTrue(ctrl.authenticated());
        assertTrue(ctrl.inProgress());
        assertNull(run2(again, ctrl));
        assertEquals(2, ctrl.transactions());
        // a failed re-authentication ends the authentication
        DhchapHostSession wrong = host(DhchapKeys.of(DhchapSecret.generate(0, 32, RANDOM)), 3);
        assertNotNull(run(wrong, ctrl));
        assertFalse(ctrl.authenticated());
    }

    /** The rest of a transaction whose Negotiate was already sent. */
    private static DhchapException run2(DhchapHostSession host, DhchapControllerSession ctrl) {
        try {
            ctrl.onSend(wire(host.onChallenge(wire(ctrl.onReceive()))));
            DhchapSuccess2 s2 = host.onSuccess1(wire(ctrl.onReceive()));
            if (s2 != null) {
                ctrl.onSend(wire(s2));
            }
            return null;
        } catch (DhchapException e) {
            return e;
        }
    }
}
