package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The controller side of DH-HMAC-CHAP on one queue (NVMe Base 2.0, 8.13.5; Linux {@code nvmet_execute_auth_send()}
 * and {@code nvmet_execute_auth_receive()} in {@code drivers/nvme/target/fabrics-cmd-auth.c}), independent of the
 * transport. {@link #onSend} takes the data of each Authentication Send, {@link #onReceive} produces the data of
 * each Authentication Receive. The step machine is nvmet's {@code dhchap_step}:
 *
 * <pre>
 *  NEGOTIATE --Send AUTH_Negotiate ok--> CHALLENGE --Receive: Challenge--> REPLY --Send Reply ok--> SUCCESS1
 *  SUCCESS1 --Receive: Success1--> AUTHENTICATED (unidirectional) | SUCCESS2 --Send Success2--> AUTHENTICATED
 *  a check that fails on a Send          --> FAILURE1 --Receive: AUTH_Failure1--> FAILED
 *  wrong message for the step, AUTH_Failure2 from the host, Receive out of order --> FAILED
 * </pre>
 *
 * FAILED is final: the target then tears the controller down, as nvmet does with {@code nvmet_ctrl_fatal_error()}.
 * AUTH_Negotiate in AUTHENTICATED starts a re-authentication (the host-initiated one Linux exposes); the queue
 * stays authenticated until it fails. Every message is checked: type for the step (out of order, replayed),
 * T_ID, hash and DH group against what this host is allowed, HL, DHVLEN and the DH value, the response R1 (constant
 * time), and bidirectional requests against the controller key.
 *
 * <p>Not thread-safe: the queue's thread drives it. Nothing here logs; {@link #failureReason()} and
 * {@link #failureDetail()} say what went wrong (never a secret).
 */
public final class DhchapControllerSession {

    /** nvmet's {@code dhchap_step} plus the two outcomes. */
    public enum State { NEGOTIATE, CHALLENGE, REPLY, SUCCESS1, SUCCESS2, FAILURE1, AUTHENTICATED, FAILED }

    /** What the target does with an Authentication Send. */
    public enum SendResult {
        /** Complete the command with success; the next message comes with Authentication Receive. */
        ACCEPTED,
        /** Complete the command with success, then fail the controller (nvmet_ctrl_fatal_error()). */
        TERMINATE
    }

    private final DhchapKeys keys;
    private final String hostNqn;
    private final String subsysNqn;
    private final SecureRandom random;

    private State state = State.NEGOTIATE;
    private boolean authenticated;
    private int tid = -1;
    private DhchapHash hash;
    private DhchapDhGroup group;
    private DhKeyExchange dh;
    private byte[] c1;
    private long s1;
    private byte[] sessionKey;
    private byte[] c2;
    private long s2;
    private DhchapFailureReason failureReason;
    private String failureDetail;
    private int transactions;

    public DhchapControllerSession(DhchapKeys keys, String hostNqn, String subsysNqn, SecureRandom random) {
        this.keys = keys;
        this.hostNqn = hostNqn;
        this.subsysNqn = subsysNqn;
        this.random = random;
    }

    public State state() {
        return state;
    }

    /** True once a transaction succeeded, and while a re-authentication runs; false after any failure. */
    public boolean authenticated() {
        return authenticated;
    }

    /** Final failure: the target must tear the controller down. */
    public boolean failed() {
        return state == State.FAILED;
    }

    /** True between the first AUTH_Negotiate and the end of that transaction. */
    public boolean inProgress() {
        return state != State.NEGOTIATE && state != State.AUTHENTICATED && state != State.FAILED;
    }

    /** Successful transactions so far (1 after the first authentication; more after re-authentications). */
    public int transactions() {
        return transactions;
    }

    public DhchapHash hash() {
        return hash;
    }

    public DhchapDhGroup dhGroup() {
        return group;
    }

    public boolean bidirectional() {
        return c2 != null;
    }

    public DhchapFailureReason failureReason() {
        return failureReason;
    }

    public String failureDetail() {
        return failureDetail;
    }

    /** The data of an Authentication Send (TL bytes). */
    public SendResult onSend(MemorySegment data) {
        if (state == State.FAILED) {
            return SendResult.TERMINATE;
        }
        int type;
        int id;
        try {
            type = AuthMessage.peekType(data);
            id = AuthMessage.peekId(data);
        } catch (MalformedStructureException e) {
            return terminate(DhchapFailureReason.INCORRECT_MESSAGE, "message too short");
        }
        if (type == AuthMessage.TYPE_COMMON && id == AuthMessage.ID_NEGOTIATE) {
            // a new transaction: first authentication, restart, or re-authentication (nvmet "reset negotiation")
            resetTransaction();
            negotiate(data);
            return SendResult.ACCEPTED;
        }
        if (type == AuthMessage.TYPE_COMMON && id == AuthMessage.ID_FAILURE2) {
            DhchapFailureReason reason = DhchapFailureReason.FAILED;
            try {
                reason = AuthFailure.decode(data).reason();
            } catch (MalformedStructureException e) {
                // a short Failure2 is still a failure
            }
            return terminate(reason, "host reported AUTH_Failure2: " + reason);
        }
        if (type != AuthMessage.TYPE_DHCHAP) {
            return terminate(DhchapFailureReason.INCORRECT_MESSAGE,
                    String.format("unexpected message %02xh/%02xh in step %s", type, id, state));
        }
        int expected = switch (state) {
            case REPLY -> AuthMessage.ID_REPLY;
            case SUCCESS2 -> AuthMessage.ID_SUCCESS2;
            default -> -1;
        };
        if (id != expected) {
            return terminate(DhchapFailureReason.INCORRECT_MESSAGE,
                    String.format("message %02xh out of order in step %s", id, state));
        }
        int messageTid = data.byteSize() >= AuthMessage.HEADER_SIZE ? AuthMessage.peekTid(data) : -1;
        if (messageTid != tid) {
            // nvmet: FAILURE1 with INCORRECT_PAYLOAD, which the host fetches with Authentication Receive
            toFailure1(DhchapFailureReason.INCORRECT_PAYLOAD, "transaction id " + messageTid + ", expected " + tid);
            return SendResult.ACCEPTED;
        }
        if (id == AuthMessage.ID_REPLY) {
            reply(data);
            return SendResult.ACCEPTED;
        }
        // Success2: the host verified our response
        try {
            DhchapSuccess2.decode(data);
        } catch (MalformedStructureException e) {
            return terminate(DhchapFailureReason.INCORRECT_PAYLOAD, "malformed Success2: " + e.getMessage());
        }
        succeed();
        return SendResult.ACCEPTED;
    }

    /**
     * The data of an Authentication Receive: the Challenge, Success1 or AUTH_Failure1 of the current step. A
     * Receive in a step that expects a Send is out of order: AUTH_Failure1 and the transaction fails (nvmet's
     * "unhandled step"). After this call, {@link #failed()} says whether the controller must be torn down.
     */
    public AuthMessage onReceive() {
        switch (state) {
            case CHALLENGE -> {
                return challenge();
            }
            case SUCCESS1 -> {
                return success1();
            }
            case FAILURE1 -> {
                AuthFailure f = AuthFailure.failure1(tid < 0 ? 0 : tid, failureReason);
                finalFailure();
                return f;
            }
            default -> {
                if (failureReason == null || state != State.FAILED) {
                    failureReason = DhchapFailureReason.FAILED;
                    failureDetail = "Authentication Receive out of order in step " + state;
                }
                AuthFailure f = AuthFailure.failure1(tid < 0 ? 0 : tid, failureReason);
                finalFailure();
                return f;
            }
        }
    }

    /**
     * The exchange did not finish in time, or the transport ended it: the transaction fails (nvmet's
     * {@code nvmet_auth_expired_work()} resets the step; nvmf4j also drops the queue, see the target).
     */
    public void expire(String why) {
        if (state != State.FAILED) {
            failureReason = DhchapFailureReason.FAILED;
            failureDetail = why;
            finalFailure();
        }
    }

    private void negotiate(MemorySegment data) {
        AuthNegotiate n;
        try {
            n = AuthNegotiate.decode(data);
        } catch (MalformedStructureException e) {
            // too short or id lists beyond 30 entries (nvmet_auth_negotiate(): INCORRECT_PAYLOAD)
            if (data.byteSize() >= AuthMessage.HEADER_SIZE) {
                tid = AuthMessage.peekTid(data);
            }
            toFailure1(DhchapFailureReason.INCORRECT_PAYLOAD, "malformed AUTH_Negotiate: " + e.getMessage());
            return;
        }
        tid = n.tid();
        if (n.scC() != 0) {
            toFailure1(DhchapFailureReason.CONCAT_MISMATCH, "secure channel concatenation requested (SC_C "
                    + n.scC() + "); nvmf4j has no secure channel");
            return;
        }
        if (n.napd() != 1) {
            toFailure1(DhchapFailureReason.HASH_UNUSABLE, "NAPD " + n.napd() + ", expected 1");
            return;
        }
        if (n.protocolId() != AuthNegotiate.AUTHID_DHCHAP) {
            toFailure1(DhchapFailureReason.INCORRECT_PAYLOAD,
                    String.format("protocol %02xh is not DH-HMAC-CHAP", n.protocolId()));
            return;
        }
        // the first the host offers among those this host is allowed (Linux hosts offer SHA-256 and the null
        // group first, so with every choice allowed this is nvmet's default hmac(sha256) / null)
        hash = n.hashIds().stream().map(DhchapHash::fromId).flatMap(java.util.Optional::stream)
                .filter(keys.hashes()::contains).findFirst().orElse(null);
        if (hash == null) {
            toFailure1(DhchapFailureReason.HASH_UNUSABLE, "no allowed hash offered " + n.hashIds()
                    + "; allowed " + keys.hashes());
            return;
        }
        group = n.dhGroupIds().stream().map(DhchapDhGroup::fromId).flatMap(java.util.Optional::stream)
                .filter(keys.dhGroups()::contains).findFirst().orElse(null);
        if (group == null) {
            toFailure1(DhchapFailureReason.DHGROUP_UNUSABLE, "no allowed DH group offered " + n.dhGroupIds()
                    + "; allowed " + keys.dhGroups());
            return;
        }
        state = State.CHALLENGE;
    }

    private AuthMessage challenge() {
        c1 = new byte[hash.length()];
        random.nextBytes(c1);
        s1 = DhchapSequenceNumbers.next();
        byte[] dhValue = new byte[0];
        if (!group.isNull()) {
            dh = DhKeyExchange.generate(group, random);
            dhValue = dh.publicValue();
        }
        state = State.REPLY;
        return new DhchapChallenge(tid, hash.id(), group.id(), s1, c1.clone(), dhValue);
    }

    private void reply(MemorySegment data) {
        DhchapReply r;
        try {
            r = DhchapReply.decode(data);
        } catch (MalformedStructureException e) {
            toFailure1(DhchapFailureReason.INCORRECT_PAYLOAD, "malformed Reply: " + e.getMessage());
            return;
        }
        if (r.response().length != hash.length()) {
            toFailure1(DhchapFailureReason.INCORRECT_PAYLOAD, "Reply HL " + r.response().length + " for " + hash);
            return;
        }
        if (r.dhValue().length != group.valueLength()) {
            toFailure1(DhchapFailureReason.INCORRECT_PAYLOAD, "Reply DHVLEN " + r.dhValue().length + " for "
                    + group);
            return;
        }
        if (!group.isNull()) {
            try {
                sessionKey = dh.sharedSecret(r.dhValue());
            } catch (DhKeyExchange.InvalidDhValueException e) {
                toFailure1(DhchapFailureReason.DHGROUP_UNUSABLE, "host DH value unusable: " + e.getMessage());
                return;
            }
        }
        byte[] challenge = DhchapResponses.augmentedChallenge(hash, sessionKey, c1);
        byte[] expected = DhchapResponses.hostResponse(hash, keys.key().transform(hostNqn), challenge, s1, tid,
                hostNqn, subsysNqn);
        if (!MessageDigest.isEqual(expected, r.response())) {
            toFailure1(DhchapFailureReason.FAILED, "host response mismatch (wrong or missing host key)");
            return;
        }
        if (r.challengeValid() && r.seqnum() != 0) {
            if (keys.ctrlKey() == null) {
                // nvmet_auth_success1(): the host asks us to authenticate but we have no controller key
                toFailure1(DhchapFailureReason.FAILED,
                        "host requested bidirectional authentication; no controller key configured for it");
                return;
            }
            c2 = r.challenge();
            s2 = r.seqnum();
        }
        state = State.SUCCESS1;
        if (c2 == null) {
            // unidirectional: authenticated once the host's response checks out (nvmet_auth_reply())
            authenticated = true;
        }
    }

    private AuthMessage success1() {
        if (c2 == null) {
            succeed();
            return new DhchapSuccess1(tid, hash.length(), false, new byte[0]);
        }
        byte[] challenge = DhchapResponses.augmentedChallenge(hash, sessionKey, c2);
        byte[] r2 = DhchapResponses.controllerResponse(hash, keys.ctrlKey().transform(subsysNqn), challenge, s2,
                tid, hostNqn, subsysNqn);
        state = State.SUCCESS2;
        return new DhchapSuccess1(tid, hash.length(), true, r2);
    }

    private void succeed() {
        state = State.AUTHENTICATED;
        authenticated = true;
        transactions++;
        wipe();
    }

    private void toFailure1(DhchapFailureReason reason, String detail) {
        failureReason = reason;
        failureDetail = detail;
        authenticated = false;
        state = State.FAILURE1;
        wipe();
    }

    private SendResult terminate(DhchapFailureReason reason, String detail) {
        failureReason = reason;
        failureDetail = detail;
        finalFailure();
        return SendResult.TERMINATE;
    }

    private void finalFailure() {
        state = State.FAILED;
        authenticated = false;
        wipe();
    }

    private void resetTransaction() {
        wipe();
        c1 = null;
        c2 = null;
        s2 = 0;
        dh = null;
        hash = null;
        group = null;
        failureReason = null;
        failureDetail = null;
    }

    private void wipe() {
        if (sessionKey != null) {
            Arrays.fill(sessionKey, (byte) 0);
            sessionKey = null;
        }
        dh = null;
    }
}
