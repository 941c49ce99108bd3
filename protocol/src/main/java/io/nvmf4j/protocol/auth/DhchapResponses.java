package io.nvmf4j.protocol.auth;

import java.nio.charset.StandardCharsets;
import javax.crypto.Mac;

/**
 * The DH-HMAC-CHAP response computations (NVMe Base 2.0, 8.13.5.2 and 8.13.5.3), byte for byte as Linux computes
 * them ({@code nvme_auth_dhchap_setup_host_response()} / {@code nvme_auth_dhchap_setup_ctrl_response()} in
 * {@code drivers/nvme/host/auth.c}, {@code nvmet_auth_host_hash()} / {@code nvmet_auth_ctrl_hash()} in
 * {@code drivers/nvme/target/auth.c}):
 *
 * <pre>
 *  R1 = HMAC(Kh', Ca1 || S1 (le32) || T_ID (le16) || SC (00h) || "HostHost"   || HostNQN || 00h || SubsysNQN)
 *  R2 = HMAC(Kc', Ca2 || S2 (le32) || T_ID (le16) || SC (00h) || "Controller" || SubsysNQN || 00h || HostNQN)
 * </pre>
 *
 * where Kh' is the host key transformed with the host NQN, Kc' the controller key transformed with the subsystem
 * NQN ({@link DhchapSecret#transform}), and Ca the challenge, augmented when a DH group is used:
 * Ca = HMAC(H(g^xy), C) ({@link #augmentedChallenge}, Linux {@code nvme_auth_augmented_challenge()}).
 */
public final class DhchapResponses {

    private static final byte[] HOST_HOST = "HostHost".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTROLLER = "Controller".getBytes(StandardCharsets.US_ASCII);

    private DhchapResponses() {
    }

    /** Ca = HMAC-hash(key = hash(sessionKey), challenge); the challenge itself when there is no session key. */
    public static byte[] augmentedChallenge(DhchapHash hash, byte[] sessionKey, byte[] challenge) {
        if (sessionKey == null || sessionKey.length == 0) {
            return challenge.clone();
        }
        byte[] hashedKey = hash.digest().digest(sessionKey);
        Mac mac = hash.hmac(hashedKey);
        return mac.doFinal(challenge);
    }

    /** R1, the host's response to the controller's challenge C1 with sequence number S1. */
    public static byte[] hostResponse(DhchapHash hash, byte[] transformedHostKey, byte[] challenge, long seqnum,
                                      int tid, String hostNqn, String subsysNqn) {
        return compute(hash, transformedHostKey, challenge, seqnum, tid, HOST_HOST, hostNqn, subsysNqn);
    }

    /** R2, the controller's response to the host's challenge C2 with sequence number S2. */
    public static byte[] controllerResponse(DhchapHash hash, byte[] transformedCtrlKey, byte[] challenge,
                                            long seqnum, int tid, String hostNqn, String subsysNqn) {
        return compute(hash, transformedCtrlKey, challenge, seqnum, tid, CONTROLLER, subsysNqn, hostNqn);
    }

    private static byte[] compute(DhchapHash hash, byte[] key, byte[] challenge, long seqnum, int tid,
                                  byte[] role, String first, String second) {
        Mac mac = hash.hmac(key);
        mac.update(challenge);
        mac.update(new byte[] {(byte) seqnum, (byte) (seqnum >>> 8), (byte) (seqnum >>> 16), (byte) (seqnum >>> 24)});
        mac.update(new byte[] {(byte) tid, (byte) (tid >>> 8)});
        mac.update((byte) 0); // SC_C: no secure channel concatenation
        mac.update(role);
        mac.update(first.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
        mac.update(second.getBytes(StandardCharsets.UTF_8));
        return mac.doFinal();
    }
}
