package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.hostile.DdpRdmapFrames.Segment;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Guessed STags (F1): softiwarp STags are index << 8 | key, keys 0x5a + n * 0x3b. A peer that has not even sent a
 * Connect names them in Send with Invalidate (RFC 5040 4.3), RDMA Read Requests (4.4) and RDMA Writes (4.1). The
 * target's memory is local-only and not remotely invalidatable: every such frame ends in a Terminate (RFC 5040 4.8),
 * nothing is invalidated, read or written, and hosts keep working.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StagAttackTest extends HostileTestBase {

    /** How a guessed-STag frame was answered. */
    enum Answer { TERMINATE, CLOSED, ACCEPTED }

    static int stag(int index, int n) {
        return index << 8 | ((0x5a + n * 0x3b) & 0xff);
    }

    /**
     * One Send with Invalidate of {@code stag} carrying a Property Get capsule on a fresh connection (no Connect). The
     * invalidation was accepted if the capsule is answered with a completion instead of a Terminate.
     */
    Answer sendWithInvalidate(int stag) throws IOException, InterruptedException {
        try (RawHost raw = admin()) {
            raw.sendWithInvalidate(NvmeCapsules.propertyGet(raw.nextCid(), NvmeCapsules.PROP_CAP, true), stag);
            return answer(raw);
        }
    }

    /**
     * A fresh admin-sized connection (no Connect). The sweeps open connections faster than the target tears the
     * terminated ones down: past its cap of unconnected queues per address it answers NO_RSC (the defence
     * working), so back off and retry.
     */
    RawHost admin() throws IOException, InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                return RawHost.admin(target.address);
            } catch (RawHost.CmRejected busy) {
                if (busy.status != NO_RSC || attempt == 200) {
                    throw busy;
                }
                Thread.sleep(10);
            }
        }
    }

    /** NVMe-oF RDMA CM reject status NVME_RDMA_CM_NO_RSC (NVMe-oF 1.1, 7.3.3). */
    private static final int NO_RSC = 6;

    private static Answer answer(RawHost raw) throws IOException {
        raw.mpa.readTimeout(Duration.ofSeconds(3));
        try {
            while (true) {
                Segment s = raw.next();
                if ((s.opcode() >= DdpRdmapFrames.SEND && s.opcode() <= DdpRdmapFrames.SEND_WITH_SE_AND_INVALIDATE)
                        || s.opcode() == DdpRdmapFrames.RDMA_READ_RESPONSE) {
                    return Answer.ACCEPTED;
                }
            }
        } catch (RawHost.Terminated t) {
            return Answer.TERMINATE;
        } catch (EOFException | SocketTimeoutException closedOrSilent) {
            return Answer.CLOSED;
        } catch (IOException reset) {
            return Answer.CLOSED;
        }
    }

    /** The probe of the issue: STag 0x195 (index 1, key 0x5a + 0x3b) before any Connect. */
    @Test
    void oneSendWithInvalidateCannotDisableTheTargetBufferPool() throws Exception {
        Answer answer = sendWithInvalidate(0x195);
        assertTargetSurvived();
        // RFC 5040 7.1: an STag that may not be invalidated is a remote protection error, reported by Terminate
        assertEquals(Answer.TERMINATE, answer, "Send with Invalidate of STag 0x195");
    }

    /** The sweep: indices 1..8, every key; on a fresh target the pool is among them. */
    @Test
    void aSweepOfGuessedStagsInvalidatesNothing() throws Exception {
        int accepted = 0;
        StringBuilder which = new StringBuilder();
        for (int index = 1; index <= 8; index++) {
            for (int n = 0; n < 256; n++) {
                if (sendWithInvalidate(stag(index, n)) == Answer.ACCEPTED) {
                    accepted++;
                    if (which.length() < 200) {
                        which.append(String.format(" 0x%x", stag(index, n)));
                    }
                }
            }
        }
        assertEquals(0, accepted, "remote invalidation of target STags accepted:" + which);
        assertTargetSurvived();
    }

    /** RDMA Read Requests of guessed STags: the target's memory is never remotely readable. */
    @Test
    void rdmaReadRequestsOfGuessedStagsReturnNoTargetMemory() throws Exception {
        for (int index = 1; index <= 4; index++) {
            for (int n = 0; n < 64; n++) {
                try (RawHost raw = admin()) {
                    raw.readRequest(RawHost.DATA_STAG, 0, 4096, stag(index, n), 0);
                    Answer a = answer(raw);
                    assertTrue(raw.readResponses.isEmpty() && a != Answer.ACCEPTED,
                            String.format("STag 0x%x was readable", stag(index, n)));
                }
            }
        }
        assertTargetSurvived();
    }

    /** RDMA Writes to guessed STags: nothing of the target's or a host's changes. */
    @Test
    void rdmaWritesToGuessedStagsChangeNothing() throws Exception {
        host.writePattern(77);
        byte[] junk = new byte[4096];
        java.util.Arrays.fill(junk, (byte) 0xEE);
        for (int index = 1; index <= 4; index++) {
            for (int n = 0; n < 64; n++) {
                try (RawHost raw = admin()) {
                    raw.rdmaWrite(stag(index, n), 0, junk);
                    raw.send(NvmeCapsules.propertyGet(raw.nextCid(), NvmeCapsules.PROP_CAP, true));
                    Answer a = answer(raw);
                    assertTrue(a != Answer.ACCEPTED, String.format("RDMA Write to STag 0x%x accepted", stag(index, n)));
                }
            }
        }
        assertNull(host.patternIntact(77));
        assertTargetSurvived();
    }

    /** A Send with a wrong MSN (RFC 5041 5.1: MSN starts at 1) is a DDP error: a Terminate, layer DDP. */
    @Test
    void aSendWithAWrongMsnEndsInADdpTerminate() throws Exception {
        try (RawHost raw = attacker(RawHost.admin(target.address))) {
            raw.mpa.sendUlpdu(DdpRdmapFrames.untagged(DdpRdmapFrames.SEND, true, 0, DdpRdmapFrames.QN_SEND, 7, 0,
                    NvmeCapsules.keepAlive(1)));
            try {
                raw.drain(Duration.ofSeconds(3));
                throw new AssertionError("no Terminate for MSN 7");
            } catch (RawHost.Terminated t) {
                assertEquals(1, t.terminate.terminateLayer(), "DDP layer: " + t.terminate);
            }
        }
        assertTargetSurvived();
    }
}
