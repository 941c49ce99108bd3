package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.hostile.NvmeCapsules.Completion;
import io.nvmf4j.target.ControllerShare;
import io.nvmf4j.target.rdma.RejectReason;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One peer taking every controller of a subsystem (issue 27, item 2): idle admin connections with KATO 0 hold a
 * controller each for as long as they stay, so one host NQN, or one address posing as many host NQNs, could take
 * every controller ID and leave other hosts Connect Controller Busy. Each gets its share; the Connect beyond it is
 * Controller Busy (DNR) and counted as {@code controller_share}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ControllerShareAttackTest extends HostileTestBase {

    /** A subsystem with 100 controller IDs (nvmet attr_cntlid_max 100) and 101 idle admin queues of one host. */
    @Test
    void oneHostNqnWithOneHundredAndOneIdleControllersLocksNoOtherHostOut() throws Exception {
        try (TargetUnderAttack narrow = TargetUnderAttack.start(100)) {
            UUID attacker = UUID.randomUUID(); // one Host Identifier, so one host NQN
            int accepted = 0;
            int busy = 0;
            int cmRejected = 0;
            for (int i = 0; i < 101; i++) {
                RawHost raw;
                try {
                    raw = attacker(RawHost.admin(narrow.address));
                } catch (RawHost.CmRejected unconnectedShare) {
                    // a refused queue the attacker keeps open counts in the per-address share of unconnected
                    // queues: refusing the attacker at the CM is fine, refusing the host below is not
                    cmRejected++;
                    continue;
                }
                raw.hostId = attacker;
                Completion c = raw.connect(0, 31, TargetUnderAttack.SUBNQN, attacker, ConnectData.DYNAMIC_CNTLID, 0);
                if (c.success()) {
                    accepted++;
                } else {
                    assertEquals(1, c.sct(), c.toString());
                    assertEquals(0x81, c.sc(), "Connect Controller Busy: " + c);
                    assertTrue(c.dnr(), c.toString());
                    busy++;
                    // a refused queue held open would count in the transport's per-address share of
                    // unconnected queues, which the host below shares on loopback; the connect timeout ends it
                    // anyway, and what the attack is about is the controllers of the accepted ones
                    raw.close();
                }
            }
            assertEquals(ControllerShare.DEFAULT_PER_HOST_NQN, accepted, "controllers of the one host NQN");
            assertEquals(101, accepted + busy + cmRejected);
            try (LegitimateHost other = LegitimateHost.connect(narrow.address)) {
                other.verifiedIo(7, 2);
            }
            awaitCount(narrow, RejectReason.CONTROLLER_SHARE, busy);
            closeAttackers();
        }
        assertTargetSurvived();
    }

    /** Many host NQNs from one address: the address's share bounds them together. */
    @Test
    void manyHostNqnsFromOneAddressGetTheAddressShare() throws Exception {
        try (TargetUnderAttack narrow = TargetUnderAttack.start(100)) {
            narrow.target().controllerShare(new ControllerShare(ControllerShare.DEFAULT_PER_HOST_NQN, 8));
            int accepted = 0;
            for (int i = 0; i < 12; i++) {
                RawHost raw = attacker(RawHost.admin(narrow.address)); // a new host ID and NQN each
                Completion c = raw.connect(0, 31, TargetUnderAttack.SUBNQN, raw.hostId, ConnectData.DYNAMIC_CNTLID, 0);
                if (c.success()) {
                    accepted++;
                } else {
                    assertEquals(0x81, c.sc(), "Connect Controller Busy: " + c);
                    raw.close();
                }
            }
            assertEquals(8, accepted, "controllers from 127.0.0.1");
            awaitCount(narrow, RejectReason.CONTROLLER_SHARE, 4);
            closeAttackers();
            // the share is of live controllers: once the attacker leaves, the address may connect again
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try (LegitimateHost later = LegitimateHost.connect(narrow.address)) {
                    later.verifiedIo(8, 1);
                    break;
                } catch (Exception e) {
                    if (System.nanoTime() - deadline > 0) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
        }
        assertTargetSurvived();
    }

    private static void awaitCount(TargetUnderAttack t, RejectReason reason, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (t.rejected(reason) < expected && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertEquals(expected, t.rejected(reason), reason.label());
        assertEquals(0, t.rejected(RejectReason.CONNECT_REFUSED), "counted once, as controller_share only");
    }
}
