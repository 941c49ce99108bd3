package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;

/**
 * The host side of one DH-HMAC-CHAP transaction on one queue (NVMe Base 2.0, 8.13.5; Linux
 * {@code nvme_queue_auth_work()} in {@code drivers/nvme/host/auth.c}), independent of the transport. The caller
 * moves the messages with Authentication Send/Receive:
 *
 * <pre>
 *  start()           -> AUTH_Negotiate                      (Send)
 *  onChallenge(data) <- DH-HMAC-CHAP_Challenge               (Receive) -> Reply to send, or failure
 *  onSuccess1(data)  <- DH-HMAC-CHAP_Success1                (Receive) -> Success2 to send (bidirectional) or done
 * </pre>
 *
 * Every check fails the transaction with a {@link DhchapException} whose reason is the explanation the host
 * reports; when {@link #failure2()} is not null the caller sends that AUTH_Failure2 to the controller before giving
 * up (Linux sends Failure2 for faults it finds after the Challenge, never in answer to an AUTH_Failure1). Checked:
 * the message type for the step (out of order or replayed messages), T_ID, the hash and DH group against what was
 * offered, HL and DHVLEN, the peer's DH value, and in bidirectional mode the controller's response R2: a
 * Success1 without R2 is refused (Linux accepts it; a controller that skips bidirectional authentication must
 * not pass for an authenticated one).
 *
 * <p>Not thread-safe: one transaction, one caller.
 */
public final class DhchapHostSession {

    /** Where the transaction stands. */
    public enum State { START, NEGOTIATE_SENT, REPLY_SENT, AUTHENTICATED, FAILED }

    private final DhchapKeys keys;
    private final String hostNqn;
    private final String subsysNqn;
    private final int tid;
    private final SecureRandom random;
    private final List<DhchapHash> offeredHashes;
    private final List<DhchapDhGroup> offeredGroups;

    private State state = State.START;
    private DhchapHash hash;
    private DhchapDhGroup group;
    private byte[] sessionKey;
    private byte[] c2;
    private long s2;
    private AuthFailure failure2;

    /**
     * @param tid transaction id: any 16-bit value the host picks (Linux counts them per controller,
     *            {@code ctrl->transaction++}); every controller message must carry it back
     */
    public DhchapHostSession(DhchapKeys keys, String hostNqn, String subsysNqn, int tid, SecureRandom random) {
        this.keys = keys;
        this.hostNqn = hostNqn;
        this.subsysNqn = subsysNqn;
        this.tid = tid & 0xFFFF;
        this.random = random;
        // offer in the order Linux does (nvme_auth_set_dhchap_negotiate_data()): SHA-256 first, null DH group first
        this.offeredHashes = Arrays.stream(DhchapHash.values()).filter(keys.hashes()::contains).toList();
        this.offeredGroups = Arrays.stream(DhchapDhGroup.values()).filter(keys.dhGroups()::contains).toList();
    }

    public State state() {
        return state;
    }

    public boolean authenticated() {
        return state == State.AUTHENTICATED;
    }

    /** The hash the controller chose (after the Challenge). */
    public DhchapHash hash() {
        return hash;
    }

    /** The DH group the controller chose (after the Challenge). */
    public DhchapDhGroup dhGroup() {
        return group;
    }

    public int tid() {
        return tid;
    }

    /** The AUTH_Failure2 to send after a failure this side found, else null. */
    public AuthFailure failure2() {
        return failure2;
    }

    /** The AUTH_Negotiate to send first. */
    public AuthNegotiate start() {
        expectState(State.START, "start");
        state = State.NEGOTIATE_SENT;
        return AuthNegotiate.of(tid, offeredHashes, offeredGroups);
    }

    /**
     * The controller's answer to AUTH_Negotiate; returns the DH-HMAC-CHAP_Reply to send.
     *
     * @throws DhchapException when the controller sent AUTH_Failure1 or the Challenge cannot be used
     */
    public DhchapReply onChallenge(MemorySegment data) throws DhchapException {
        expectState(State.NEGOTIATE_SENT, "a Challenge");
        AuthMessage m = receive(data, AuthMessage.ID_CHALLENGE, "Challenge");
        DhchapChallenge c = (DhchapChallenge) m;
        DhchapHash h = DhchapHash.fromId(c.hashId()).filter(offeredHashes::contains).orElse(null);
        if (h == null) {
            throw fail(DhchapFailureReason.HASH_UNUSABLE,
                    String.format("controller chose hash %02xh, which was not offered", c.hashId()));
        }
        if (c.challenge().length != h.length()) {
            throw fail(DhchapFailureReason.INCORRECT_PAYLOAD,
                    "Challenge HL " + c.challenge().length + " does not match " + h);
        }
        DhchapDhGroup g = DhchapDhGroup.fromId(c.dhGroupId()).filter(offeredGroups::contains).orElse(null);
        if (g == null) {
            throw fail(DhchapFailureReason.DHGROUP_UNUSABLE,
                    String.format("controller chose DH group %02xh, which was not offered", c.dhGroupId()));
        }
        if (c.dhValue().length != g.valueLength()) {
            throw fail(DhchapFailureReason.INCORRECT_PAYLOAD,
                    "Challenge DHVLEN " + c.dhValue().length + " does not match " + g);
        }
        hash = h;
        group = g;
        byte[] hostDhValue = new byte[0];
        if (!g.isNull()) {
            DhKeyExchange dh = DhKeyExchange.generate(g, random);
            try {
                sessionKey = dh.sharedSecret(c.dhValue());
            } catch (DhKeyExchange.InvalidDhValueException e) {
                throw fail(DhchapFailureReason.INCORRECT_PAYLOAD, "controller DH value unusable: " + e.getMessage());
            }
            hostDhValue = dh.publicValue();
        }
        byte[] challenge = DhchapResponses.augmentedChallenge(h, sessionKey, c.challenge());
        byte[] response = DhchapResponses.hostResponse(h, keys.key().transform(hostNqn), challenge, c.seqnum(), tid,
                hostNqn, subsysNqn);
        byte[] ourChallenge = new byte[h.length()];
        if (keys.bidirectional()) {
            random.nextBytes(ourChallenge);
            c2 = ourChallenge;
            s2 = DhchapSequenceNumbers.next();
        }
        state = State.REPLY_SENT;
        return new DhchapReply(tid, response, keys.bidirectional(), keys.bidirectional() ? s2 : 0, ourChallenge,
                hostDhValue);
    }

    /**
     * The controller's answer to the Reply. Returns the DH-HMAC-CHAP_Success2 to send in bidirectional mode, null
     * when the transaction is complete (unidirectional). Either way {@link #authenticated()} is then true.
     *
     * @throws DhchapException when the controller sent AUTH_Failure1, or its response R2 is missing or wrong
     */
    public DhchapSuccess2 onSuccess1(MemorySegment data) throws DhchapException {
        expectState(State.REPLY_SENT, "a Success1");
        DhchapSuccess1 s = (DhchapSuccess1) receive(data, AuthMessage.ID_SUCCESS1, "Success1");
        if (s.hashLength() != hash.length()) {
            throw fail(DhchapFailureReason.INCORRECT_PAYLOAD, "Success1 HL " + s.hashLength() + " does not match "
                    + hash);
        }
        if (!keys.bidirectional()) {
            state = State.AUTHENTICATED;
            wipe();
            return null;
        }
        if (!s.responseValid()) {
            throw fail(DhchapFailureReason.FAILED,
                    "controller did not authenticate itself (Success1 without a response; bidirectional requested)");
        }
        byte[] challenge = DhchapResponses.augmentedChallenge(hash, sessionKey, c2);
        byte[] expected = DhchapResponses.controllerResponse(hash, keys.ctrlKey().transform(subsysNqn), challenge,
                s2, tid, hostNqn, subsysNqn);
        if (!MessageDigest.isEqual(expected, s.response())) {
            throw fail(DhchapFailureReason.FAILED, "controller response mismatch (wrong controller key)");
        }
        state = State.AUTHENTICATED;
        wipe();
        return new DhchapSuccess2(tid);
    }

    /** The controller stopped answering, or the transport failed: the transaction is over. */
    public void abort() {
        if (state != State.AUTHENTICATED) {
            state = State.FAILED;
        }
        wipe();
    }

    private AuthMessage receive(MemorySegment data, int expectedId, String what) throws DhchapException {
        AuthMessage m;
        try {
            m = AuthMessage.decode(data);
        } catch (MalformedStructureException e) {
            throw fail(DhchapFailureReason.INCORRECT_PAYLOAD, "malformed message instead of " + what + ": "
                    + e.getMessage());
        }
        if (m instanceof AuthFailure f && f.failure1()) {
            state = State.FAILED;
            wipe();
            throw new DhchapException(f.reason(), true, "controller refused authentication: " + f.reason());
        }
        if (m.authType() != AuthMessage.TYPE_DHCHAP || m.authId() != expectedId) {
            throw fail(DhchapFailureReason.INCORRECT_MESSAGE, String.format(
                    "expected %s, got message %02xh/%02xh", what, m.authType(), m.authId()));
        }
        if (m.tid() != tid) {
            throw fail(DhchapFailureReason.INCORRECT_PAYLOAD,
                    "transaction id " + m.tid() + " in " + what + ", expected " + tid);
        }
        return m;
    }

    private DhchapException fail(DhchapFailureReason reason, String detail) {
        state = State.FAILED;
        failure2 = AuthFailure.failure2(tid, reason);
        wipe();
        return new DhchapException(reason, false, detail);
    }

    private void expectState(State expected, String what) {
        if (state != expected) {
            throw new IllegalStateException("DH-HMAC-CHAP host: " + what + " in state " + state);
        }
    }

    private void wipe() {
        if (sessionKey != null) {
            Arrays.fill(sessionKey, (byte) 0);
            sessionKey = null;
        }
    }
}
