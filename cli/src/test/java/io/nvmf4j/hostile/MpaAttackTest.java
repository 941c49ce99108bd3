package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Misbehaviour during MPA connection setup (RFC 5044 7.1, RFC 6581 3) and before it (F12): every malformed request is
 * refused (an MPA reject, RFC 5044 7.1 R bit, or the connection closed) within seconds, and hosts are not affected.
 */
@Timeout(value = 40, unit = TimeUnit.SECONDS)
class MpaAttackTest extends HostileTestBase {

    private static final byte[] CM = NvmeCapsules.cmRequest(0, 32, 31);

    /** Sends one request frame and expects the target to end the connection (after a reject or not). */
    private void refused(byte[] frame) throws Exception {
        try (MpaPeer peer = attacker(MpaPeer.open(target.address, Duration.ofSeconds(1)))) {
            peer.sendRaw(frame);
            assertTrue(peer.closedByTargetWithin(Duration.ofSeconds(5)), "the target kept the connection open");
        }
    }

    @Test
    void aRequestWithAWrongKeyIsDropped() throws Exception {
        byte[] pd = MpaPeer.withIrdOrd(16, 16, CM);
        refused(MpaPeer.requestFrame("MPA ID Bad Frame".getBytes(StandardCharsets.US_ASCII), MpaPeer.FLAG_ENHANCED,
                2, pd.length, pd));
        assertTargetSurvived();
    }

    @Test
    void aReplyKeySentAsARequestIsDropped() throws Exception {
        byte[] pd = MpaPeer.withIrdOrd(16, 16, CM);
        refused(MpaPeer.requestFrame(MpaPeer.KEY_REPLY, MpaPeer.FLAG_ENHANCED, 2, pd.length, pd));
        assertTargetSurvived();
    }

    @Test
    void revisionsThreeAnd255AreRefused() throws Exception {
        byte[] pd = MpaPeer.withIrdOrd(16, 16, CM);
        refused(MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, MpaPeer.FLAG_ENHANCED, 3, pd.length, pd));
        refused(MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, MpaPeer.FLAG_ENHANCED, 255, pd.length, pd));
        assertTargetSurvived();
    }

    @Test
    void privateDataLongerThan512BytesIsRefused() throws Exception {
        for (int announced : new int[] {513, 0xffff}) {
            byte[] pd = MpaPeer.withIrdOrd(16, 16, new byte[509]);
            refused(MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, MpaPeer.FLAG_ENHANCED, 2, announced, pd));
        }
        assertTargetSurvived();
    }

    @Test
    void markersRequestedAreRejectedWithAnMpaReject() throws Exception {
        try (MpaPeer peer = attacker(MpaPeer.open(target.address, Duration.ofSeconds(5)))) {
            byte[] pd = MpaPeer.withIrdOrd(16, 16, CM);
            peer.sendRaw(MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, MpaPeer.FLAG_ENHANCED | MpaPeer.FLAG_MARKERS, 2,
                    pd.length, pd));
            // RFC 5044 7.1: a responder that cannot use markers rejects (siw_proc_mpareq does, with R set)
            MpaPeer.Reply r = peer.readReply();
            assertTrue(r.rejected(), "markers were accepted");
            assertTrue(peer.closedByTargetWithin(Duration.ofSeconds(5)));
        }
        assertTargetSurvived();
    }

    @Test
    void anEnhancedRequestWithoutIrdOrdWordsIsRefused() throws Exception {
        refused(MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, MpaPeer.FLAG_ENHANCED, 2, 2, new byte[2]));
        assertTargetSurvived();
    }

    @Test
    void privateDataThatIsNotAnNvmeCmRequestIsRejected() throws Exception {
        // NVMe-oF 1.1 7.3.1: RDMA_CM_REJECT with a status (INVALID_LEN, INVALID_RECFMT, INVALID_HSQSIZE...)
        byte[][] bad = {new byte[0], new byte[31], recfmt(1), NvmeCapsules.cmRequest(0, 32, 0),
            NvmeCapsules.cmRequest(0, 65535, 65534), NvmeCapsules.cmRequest(0xffff, 32, 31),
            NvmeCapsules.cmRequest(1, 0, 127)};
        for (byte[] cm : bad) {
            try (MpaPeer peer = attacker(MpaPeer.open(target.address, Duration.ofSeconds(5)))) {
                MpaPeer.Reply r = peer.negotiate(16, 16, false, cm);
                assertTrue(r.rejected(), "accepted CM private data of " + cm.length + " bytes");
                assertTrue(NvmeCapsules.cmWord(r.applicationData(), 1) > 0, "a reject status is given");
            }
        }
        assertTargetSurvived();
    }

    private static byte[] recfmt(int value) {
        byte[] cm = NvmeCapsules.cmRequest(0, 32, 31);
        cm[0] = (byte) value;
        return cm;
    }

    @Test
    void halfARequestThenClosingLeavesNothingBehind() throws Exception {
        for (int i = 0; i < 20; i++) {
            try (MpaPeer peer = MpaPeer.open(target.address, Duration.ofSeconds(1))) {
                byte[] pd = MpaPeer.withIrdOrd(16, 16, CM);
                byte[] frame = MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, MpaPeer.FLAG_ENHANCED, 2, pd.length, pd);
                peer.sendRaw(java.util.Arrays.copyOf(frame, 10 + i));
            }
        }
        assertTargetSurvived();
    }

    /** F12: idle TCP connections that never send an MPA request cost the target no thread and lock out nobody. */
    @Test
    void sixtyTcpConnectionsThatNeverSendMpaDoNotStarveHosts() throws Exception {
        for (int i = 0; i < 60; i++) {
            attacker(MpaPeer.open(target.address, Duration.ofSeconds(1)));
        }
        assertTargetSurvived();
    }
}
