package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.target.rdma.RejectReason;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers that never read their socket (issue 27, item 3): read data goes out by RDMA Write and keeps its pool buffer
 * until the peer takes it, so zero-window readers asking for large reads could pin the poll group's whole buffer
 * pool, through the discovery subsystem (no authentication) or an I/O queue alike. Each such connection is ended
 * once its unsent data passes its share or stays unsent past the bound; other hosts keep being answered.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TransmitStallAttackTest extends HostileTestBase {

    static final int READ_BYTES = 1 << 20;

    /** 6 discovery connections x 30 Get Log Page of 1 MiB, never read: the host's commands are answered in time. */
    @Test
    void zeroWindowReadersOfTheDiscoveryLogDoNotStarveOtherHosts() throws Exception {
        java.util.List<RawHost> readers = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            RawHost raw = attacker(RawHost.admin(target.address));
            assertTrue(raw.connectAndEnable(NvmeCapsules.DISCOVERY_NQN).success());
            raw.register(RawHost.DATA_STAG, new byte[READ_BYTES]);
            readers.add(raw);
        }
        for (RawHost raw : readers) {
            for (int n = 0; n < 30; n++) {
                raw.send(NvmeCapsules.getLogPage(raw.nextCid(), 0, NvmeCapsules.LID_DISCOVERY, READ_BYTES / 4 - 1,
                        0, NvmeCapsules.keyedSgl(0, READ_BYTES, RawHost.DATA_STAG, false)));
            }
            // and never read the socket again
        }
        Thread.sleep(500); // the attackers' reads are posted and stalled
        long begin = System.nanoTime();
        host.controller.identifyNamespace(1);     // the legitimate host's commands within its 5 s timeout
        host.verifiedIo(11, 4);
        long took = System.nanoTime() - begin;
        assertTrue(took < TimeUnit.SECONDS.toNanos(5), "the host waited " + took / 1_000_000 + " ms");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (target.rejected(RejectReason.TRANSMIT_STALLED) == 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }
        assertTrue(target.rejected(RejectReason.TRANSMIT_STALLED) >= 1, "stalled readers ended");
        assertTargetSurvived();
    }

    /** The same on I/O queues: 1 MiB Reads of the namespace that the peer never takes. */
    @Test
    void zeroWindowReadersOnAnIoQueueLoseTheirConnection() throws Exception {
        java.util.List<RawHost> readers = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            RawHost admin = attacker(RawHost.admin(target.address));
            NvmeCapsules.Completion c = admin.connectAndEnable(TargetUnderAttack.SUBNQN);
            assertTrue(c.success(), c.toString());
            RawHost io = attacker(RawHost.ioQueue(target.address, TargetUnderAttack.SUBNQN, c.dw0() & 0xffff,
                    admin.hostId, 32));
            io.register(RawHost.DATA_STAG, new byte[READ_BYTES]);
            readers.add(io);
        }
        for (RawHost io : readers) {
            for (int n = 0; n < 30; n++) {
                io.send(NvmeCapsules.readWrite(NvmeCapsules.NVM_READ, io.nextCid(), 1, 0, READ_BYTES / 512,
                        NvmeCapsules.keyedSgl(0, READ_BYTES, RawHost.DATA_STAG, false)));
            }
        }
        Thread.sleep(500);
        long begin = System.nanoTime();
        host.verifiedIo(12, 4);
        long took = System.nanoTime() - begin;
        assertTrue(took < TimeUnit.SECONDS.toNanos(5), "the host waited " + took / 1_000_000 + " ms");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (target.rejected(RejectReason.TRANSMIT_STALLED) == 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }
        assertTrue(target.rejected(RejectReason.TRANSMIT_STALLED) >= 1, "stalled readers ended");
        assertTargetSurvived();
    }
}
