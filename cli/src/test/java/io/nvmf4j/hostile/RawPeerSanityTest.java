package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.hostile.NvmeCapsules.Completion;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The raw peer speaks the protocol correctly when it wants to: without this, a refused attack would prove nothing.
 * MPA setup, RDMA_CM accept, admin Connect (its data fetched by the target's RDMA Read Request and our Read Response),
 * Property Get, and the Get Log Page of a discovery controller written into our buffer.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RawPeerSanityTest extends HostileTestBase {

    @Test
    void rawPeerConnectsToTheAdminQueueAndReadsProperties() throws Exception {
        try (RawHost raw = RawHost.admin(target.address)) {
            assertEquals(0, NvmeCapsules.cmWord(raw.reply.applicationData(), 0), "RDMA_CM_ACCEPT RECFMT");
            assertTrue(NvmeCapsules.cmWord(raw.reply.applicationData(), 1) >= 32, "CRQSIZE");
            Completion connect = raw.adminConnect(TargetUnderAttack.SUBNQN);
            assertTrue(connect.success(), connect.toString());
            assertEquals(1, raw.readRequests.size(), "the Connect data was RDMA-read once");
            assertEquals(ConnectData.SIZE, raw.readRequests.get(0).readSize());
            Completion vs = raw.propertyGet(NvmeCapsules.PROP_VS, false);
            assertTrue(vs.success(), vs.toString());
            assertTrue(vs.dw0() >= 0x10200, "NVMe version " + Integer.toHexString(vs.dw0()));
            Completion cap = raw.propertyGet(NvmeCapsules.PROP_CAP, true);
            assertTrue(cap.success(), cap.toString());
            assertTrue((cap.dw01() & 0xffff) >= 1, "CAP.MQES");
        }
        assertTargetSurvived();
    }

    @Test
    void rawPeerReadsTheDiscoveryLogIntoItsOwnBuffer() throws Exception {
        try (RawHost raw = RawHost.admin(target.address)) {
            assertTrue(raw.connectAndEnable(NvmeCapsules.DISCOVERY_NQN).success());
            raw.register(RawHost.DATA_STAG, new byte[4096]);
            Completion log = raw.command(NvmeCapsules.getLogPage(raw.nextCid(), 0, NvmeCapsules.LID_DISCOVERY,
                    4096 / 4 - 1, 0, NvmeCapsules.keyedSgl(0, 4096, RawHost.DATA_STAG, false)));
            assertTrue(log.success(), log.toString());
            long numrec = java.nio.ByteBuffer.wrap(raw.buffer(RawHost.DATA_STAG))
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8);
            assertTrue(numrec >= 1, "discovery log records: " + numrec);
            assertEquals(0, raw.writesOutsideOurBuffers);
        }
        assertTargetSurvived();
    }
}
