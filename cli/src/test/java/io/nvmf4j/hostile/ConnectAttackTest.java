package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.hostile.DdpRdmapFrames.Segment;
import io.nvmf4j.hostile.NvmeCapsules.Completion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connect at the wrong time, twice, on the wrong queue, with the wrong data (NVMe-oF 1.1 3.3 and 7.3): each is refused
 * with an NVMe status, never by handing out target memory or holding it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectAttackTest extends HostileTestBase {

    @Test
    void aCommandBeforeConnectIsRefused() throws Exception {
        try (RawHost raw = attacker(RawHost.admin(target.address))) {
            Completion c = raw.propertyGet(NvmeCapsules.PROP_CAP, true);
            // refused and not to be retried (Linux nvmet_parse_connect_cmd: Invalid Opcode with DNR)
            assertFalse(c.success(), "Property Get answered before Connect: " + c);
            assertTrue(c.dnr(), c.toString());
            raw.register(RawHost.DATA_STAG, new byte[4096]);
            Completion id = raw.command(NvmeCapsules.identify(raw.nextCid(), 1, 0,
                    NvmeCapsules.keyedSgl(0, 4096, RawHost.DATA_STAG, false)));
            assertFalse(id.success(), "Identify answered before Connect: " + id);
            assertEquals(0, raw.written.size(), "no data before Connect");
        }
        assertTargetSurvived();
    }

    @Test
    void aSecondConnectOnTheSameQueueIsRefused() throws Exception {
        try (RawHost raw = attacker(RawHost.admin(target.address))) {
            assertTrue(raw.adminConnect(TargetUnderAttack.SUBNQN).success());
            Completion again = raw.adminConnect(TargetUnderAttack.SUBNQN);
            assertFalse(again.success(), "a second Connect on a connected queue: " + again);
            assertTrue(again.dnr(), again.toString());
            assertTrue(raw.propertyGet(NvmeCapsules.PROP_VS, false).success(), "the first association still works");
        }
        assertTargetSurvived();
    }

    @Test
    void anIoQueueConnectAfterItsControllerIsGoneIsRefused() throws Exception {
        int cntlid;
        UUID hostId;
        try (RawHost admin = RawHost.admin(target.address)) {
            Completion c = admin.connectAndEnable(TargetUnderAttack.SUBNQN);
            assertTrue(c.success(), c.toString());
            cntlid = c.dw0() & 0xffff;
            hostId = admin.hostId;
        }
        Thread.sleep(300); // the admin queue's disconnect releases the controller
        try (RawHost io = attacker(RawHost.open(target.address, 1, 32, 31))) {
            Completion late = io.connect(1, 31, TargetUnderAttack.SUBNQN, hostId, cntlid);
            assertFalse(late.success(), "I/O queue attached to a released controller: " + late);
        } catch (RawHost.Terminated | java.io.EOFException closed) {
            // refusing by closing the connection is fine too
        }
        assertTargetSurvived();
    }

    @Test
    void anIoConnectOnAConnectionSizedAsAnAdminQueueIsRefused() throws Exception {
        try (RawHost admin = attacker(RawHost.admin(target.address));
             RawHost wrong = attacker(RawHost.admin(target.address))) {
            Completion c = admin.connectAndEnable(TargetUnderAttack.SUBNQN);
            assertTrue(c.success(), c.toString());
            // RDMA_CM private data said QID 0, the Connect says QID 1
            Completion io = wrong.connect(1, 31, TargetUnderAttack.SUBNQN, admin.hostId, c.dw0() & 0xffff);
            assertFalse(io.success(), "Connect QID 1 on a CM QID 0 connection: " + io);
        }
        assertTargetSurvived();
    }

    /**
     * F2: RDMA_CM says QID 1, the Connect says admin queue; Get Features with a 1 MiB keyed SGL then must not RDMA-write
     * another host's bytes (or any stale pool memory) to the requester.
     */
    @Test
    void aCmQueueIdMismatchCannotReadAnotherHostsData() throws Exception {
        byte[] marker = "SECRET-OF-HOST-A".getBytes(StandardCharsets.US_ASCII);
        host.writeSecret(marker, 8L << 20);
        for (String nqn : new String[] {TargetUnderAttack.SUBNQN, NvmeCapsules.DISCOVERY_NQN}) {
            try (RawHost raw = attacker(RawHost.open(target.address, 1, 32, 31))) {
                raw.register(RawHost.DATA_STAG, new byte[1 << 20]);
                Completion connect = raw.adminConnect(nqn);
                if (connect.success()) {
                    raw.command(NvmeCapsules.propertySet(raw.nextCid(), NvmeCapsules.PROP_CC, false,
                            NvmeCapsules.CC_ENABLE));
                    raw.command(NvmeCapsules.getFeatures(raw.nextCid(), NvmeCapsules.FID_KEEP_ALIVE_TIMER,
                            NvmeCapsules.keyedSgl(0, 1 << 20, RawHost.DATA_STAG, false)));
                    raw.command(NvmeCapsules.identify(raw.nextCid(), 1, 0,
                            NvmeCapsules.keyedSgl(0, 1 << 20, RawHost.DATA_STAG, false)));
                }
            } catch (RawHost.Terminated | java.io.EOFException refused) {
                // closing on the mismatch is a correct answer too
            }
        }
        for (AutoCloseable a : attackers) {
            byte[] got = ((RawHost) a).written.toByteArray();
            assertFalse(contains(got, marker), "another host's data came back (" + got.length + " bytes written)");
            assertTrue(nonZero(got) <= 8192, nonZero(got) + " non-zero bytes written for Get Features/Identify");
        }
        assertTargetSurvived();
    }

    /** Connect data must be exactly 1024 bytes (NVMe-oF 1.1 3.3): other SGL lengths are refused before any read. */
    @Test
    void connectDataOfAnyOtherLengthIsRefused() throws Exception {
        for (int length : new int[] {0, 1, 1023, 1025, 4096, 1 << 20, (1 << 24) - 1}) {
            try (RawHost raw = attacker(RawHost.admin(target.address))) {
                raw.register(RawHost.CONNECT_DATA_STAG, new byte[Math.max(length, ConnectData.SIZE)]);
                System.arraycopy(ConnectData.of(raw.hostId, 0xffff, TargetUnderAttack.SUBNQN,
                        ConnectData.randomHostNqn(raw.hostId)), 0, raw.buffer(RawHost.CONNECT_DATA_STAG), 0,
                        ConnectData.SIZE);
                Completion c = raw.command(NvmeCapsules.connect(raw.nextCid(), 0, 31, 120_000,
                        NvmeCapsules.keyedSgl(0, length, RawHost.CONNECT_DATA_STAG, false)));
                assertFalse(c.success(), "Connect with " + length + " bytes of data: " + c);
                for (Segment r : raw.readRequests) {
                    assertTrue(Integer.toUnsignedLong(r.readSize()) <= ConnectData.SIZE,
                            "read " + Integer.toUnsignedLong(r.readSize()) + " bytes for a Connect");
                }
            } catch (RawHost.Terminated | java.io.EOFException refused) {
                // refusing by closing is fine
            }
        }
        assertTargetSurvived();
    }

    /**
     * F3: 34 Connects, each with a 1 MiB keyed SGL whose Read Request is never answered, take no pool memory and stall
     * no host: the target refuses the length before any buffer or read.
     */
    @Test
    void connectsWithAOneMebibyteSglThatAreNeverReadDoNotStarveHosts() throws Exception {
        List<RawHost> raws = new ArrayList<>();
        for (int i = 0; i < 34; i++) {
            RawHost raw = attacker(RawHost.admin(target.address));
            raw.answerReads = false;
            raw.register(RawHost.CONNECT_DATA_STAG, new byte[1 << 20]);
            raw.send(NvmeCapsules.connect(raw.nextCid(), 0, 31, 120_000,
                    NvmeCapsules.keyedSgl(0, 1 << 20, RawHost.CONNECT_DATA_STAG, false)));
            raws.add(raw);
        }
        // the attackers are still connected while the hosts work
        host.verifiedIo(2, 4);
        try (LegitimateHost newcomer = LegitimateHost.connect(target.address)) {
            newcomer.verifiedIo(3, 4);
        }
        for (RawHost raw : raws) {
            try {
                raw.drain(Duration.ofMillis(50));
            } catch (RawHost.Terminated | java.io.EOFException refused) {
                // closed: fine
            }
            for (Segment r : raw.readRequests) {
                assertTrue(Integer.toUnsignedLong(r.readSize()) <= ConnectData.SIZE,
                        "the target RDMA-reads " + Integer.toUnsignedLong(r.readSize()) + " bytes for a Connect");
            }
        }
        assertTargetSurvived();
    }

    static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    static int nonZero(byte[] bytes) {
        int n = 0;
        for (byte b : bytes) {
            if (b != 0) {
                n++;
            }
        }
        return n;
    }
}
