package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.hostile.NvmeCapsules.Completion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Floods, huge and boundary lengths, and a peer that never reads: the target answers each with an NVMe status (or a
 * Terminate), holds nothing for a peer that has not connected, logs no stack trace, and other hosts do not notice.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResourceAttackTest extends HostileTestBase {

    static final long TWO_TO_31 = 1L << 31;
    static final long TWO_TO_63 = 1L << 63;
    static final long TWO_TO_64_MINUS_1 = -1L;

    /** F4: 40 RDMA connections sized as 128-entry I/O queues that never send a Connect lock out no host. */
    @Test
    void fortyConnectionsThatNeverSendConnectDoNotLockOutHosts() throws Exception {
        int rejected = 0;
        for (int i = 0; i < 40; i++) {
            try {
                attacker(RawHost.open(target.address, 1, 128, 127));
            } catch (RawHost.CmRejected refused) {
                rejected++; // refusing attackers is fine; refusing the hosts below is not
            }
        }
        assertTargetSurvived();
        assertTrue(rejected <= 40);
    }

    /** F5: Get Log Page at offset 2^63 is Invalid Field in Command (NVMe Base 5.16), without a stack trace in the log. */
    @Test
    void getLogPageAtOffsetTwoToThe63IsInvalidFieldWithoutAStackTrace() throws Exception {
        try (RawHost raw = attacker(RawHost.admin(target.address))) {
            assertTrue(raw.connectAndEnable(NvmeCapsules.DISCOVERY_NQN).success());
            raw.register(RawHost.DATA_STAG, new byte[4096]);
            for (int i = 0; i < 20; i++) {
                Completion c = raw.command(NvmeCapsules.getLogPage(raw.nextCid(), 0, NvmeCapsules.LID_DISCOVERY,
                        1023, TWO_TO_63, NvmeCapsules.keyedSgl(0, 4096, RawHost.DATA_STAG, false)));
                assertEquals(0, c.sct(), c.toString());
                assertEquals(0x02, c.sc(), "Invalid Field in Command: " + c);
            }
            assertEquals(0, stackTraces.get(), "stack traces logged for a peer's log page offsets");
        }
        assertTargetSurvived();
    }

    /** Get Log Page offsets and lengths at every boundary: each answered, nothing written beyond the SGL. */
    @Test
    void logPageOffsetsAndLengthsAtEveryBoundary() throws Exception {
        long[] offsets = {0, 1, 4, 1023, 1024, 4096, TWO_TO_31, 1L << 32, TWO_TO_63, TWO_TO_64_MINUS_1};
        long[] numds = {0, 255, 1023, 0xffff, 0x10000, 0xffffffffL};
        try (RawHost raw = attacker(RawHost.admin(target.address))) {
            assertTrue(raw.connectAndEnable(NvmeCapsules.DISCOVERY_NQN).success());
            raw.register(RawHost.DATA_STAG, new byte[(1 << 24) - 1]);
            for (long offset : offsets) {
                for (long numd : numds) {
                    int sglLength = (int) Math.min((numd + 1) * 4, (1 << 24) - 1);
                    int before = raw.written.size();
                    Completion c = raw.command(NvmeCapsules.getLogPage(raw.nextCid(), 0, NvmeCapsules.LID_DISCOVERY,
                            numd, offset, NvmeCapsules.keyedSgl(0, sglLength, RawHost.DATA_STAG, false)));
                    String what = "offset " + Long.toUnsignedString(offset) + ", numd " + numd + ": " + c;
                    if (Long.compareUnsigned(offset, TWO_TO_63) >= 0 || (offset & 3) != 0) {
                        assertFalse(c.success(), what);
                    }
                    byte[] all = raw.written.toByteArray();
                    byte[] got = java.util.Arrays.copyOfRange(all, before, all.length);
                    assertTrue(got.length <= sglLength, "more written than the SGL: " + what);
                    if (c.success() && Long.compareUnsigned(offset, 4096) >= 0) {
                        // NVMe Base 5.16: past the end of the log is Invalid Field; at the least nothing but zeros
                        assertEquals(0, ConnectAttackTest.nonZero(got), "bytes from beyond the log: " + what);
                    }
                }
            }
            assertEquals(0, raw.writesOutsideOurBuffers);
            assertTrue(raw.propertyGet(NvmeCapsules.PROP_VS, false).success(), "the queue still works");
            assertEquals(0, stackTraces.get(), "stack traces logged");
        }
        assertTargetSurvived();
    }

    /**
     * SGL lengths (0, block-1, block, block+1, MDTS, MDTS+1, 2^24-1), in-capsule offsets and lengths (2^31, 2^32-1,
     * 2^63, 2^64-1) and LBAs (last, 2^63, 2^64-1) on an I/O queue: only exact, in-range transfers succeed (NVMe Base
     * 4.3.2: Data SGL Length Invalid; NVMe-oF 1.1 7.3.2 in-capsule bounds; NVM Command Set: LBA Out of Range).
     */
    @Test
    void ioLengthsOffsetsAndLbasAtEveryBoundary() throws Exception {
        try (RawHost admin = attacker(RawHost.admin(target.address))) {
            Completion c = admin.connectAndEnable(TargetUnderAttack.SUBNQN);
            assertTrue(c.success(), c.toString());
            try (RawHost io = attacker(RawHost.ioQueue(target.address, TargetUnderAttack.SUBNQN, c.dw0() & 0xffff, admin.hostId, 32))) {
                io.register(RawHost.DATA_STAG, new byte[1 << 24]);
                int mdts = 1 << 20;
                int[][] keyed = {{0, 1}, {511, 1}, {512, 1}, {513, 1}, {mdts, mdts / 512}, {mdts + 512, mdts / 512 + 1},
                    {(1 << 24) - 1, 32768}};
                for (int[] k : keyed) {
                    Completion r = io.command(NvmeCapsules.readWrite(NvmeCapsules.NVM_READ, io.nextCid(), 1, 0, k[1],
                            NvmeCapsules.keyedSgl(0, k[0], RawHost.DATA_STAG, false)));
                    boolean valid = k[0] == k[1] * 512 && k[0] <= mdts;
                    assertEquals(valid, r.success(), "read of " + k[1] + " blocks into an SGL of " + k[0] + ": " + r);
                }
                long[][] inCapsule = {{0, 512}, {TWO_TO_63, 512}, {TWO_TO_64_MINUS_1, 512}, {0, TWO_TO_31},
                    {0, 0xffffffffL}, {4096, 512}, {3584, 1024}};
                for (long[] ic : inCapsule) {
                    byte[] sqe = NvmeCapsules.readWrite(NvmeCapsules.NVM_WRITE, io.nextCid(), 1, 8, 1,
                            NvmeCapsules.inCapsuleSgl(ic[0], ic[1]));
                    byte[] capsule = ByteBuffer.allocate(sqe.length + 512).put(sqe).array();
                    int cid = ByteBuffer.wrap(sqe).order(java.nio.ByteOrder.LITTLE_ENDIAN).getShort(2) & 0xffff;
                    io.send(capsule);
                    Completion w = io.awaitCompletion(cid);
                    boolean valid = ic[0] == 0 && ic[1] == 512;
                    assertEquals(valid, w.success(), "in-capsule write at offset " + Long.toUnsignedString(ic[0])
                            + " length " + ic[1] + ": " + w);
                }
                long nsze = TargetUnderAttack.NAMESPACE_BYTES / 512;
                long[][] lbas = {{nsze - 1, 1}, {nsze - 1, 2}, {nsze, 1}, {TWO_TO_63, 1}, {TWO_TO_64_MINUS_1, 2}};
                for (long[] l : lbas) {
                    Completion r = io.command(NvmeCapsules.readWrite(NvmeCapsules.NVM_READ, io.nextCid(), 1, l[0],
                            (int) l[1], NvmeCapsules.keyedSgl(0, (int) l[1] * 512, RawHost.DATA_STAG, false)));
                    boolean valid = l[0] + l[1] <= nsze && l[0] >= 0;
                    assertEquals(valid, r.success(), "read at LBA " + Long.toUnsignedString(l[0]) + ": " + r);
                }
                assertEquals(0, io.writesOutsideOurBuffers);
            }
        }
        assertEquals(0, stackTraces.get(), "stack traces logged");
        assertTargetSurvived();
    }

    /**
     * F12: a peer that fills an I/O queue with 128 KiB reads and never reads its socket, then provokes a Terminate it
     * will not read either, stalls no other host and no shared thread.
     */
    @Test
    void aPeerThatNeverReadsItsSocketStallsNobody() throws Exception {
        RawHost admin = attacker(RawHost.admin(target.address));
        Completion c = admin.connectAndEnable(TargetUnderAttack.SUBNQN);
        assertTrue(c.success(), c.toString());
        RawHost io = attacker(RawHost.ioQueue(target.address, TargetUnderAttack.SUBNQN, c.dw0() & 0xffff, admin.hostId, 128));
        for (int i = 0; i < 127; i++) {
            io.send(NvmeCapsules.readWrite(NvmeCapsules.NVM_READ, io.nextCid(), 1, 0, 256,
                    NvmeCapsules.keyedSgl(0, 128 * 1024, RawHost.DATA_STAG, false)));
        }
        // a wrong MSN: the target must send a Terminate into a socket nobody reads
        io.mpa.sendUlpdu(DdpRdmapFrames.untagged(DdpRdmapFrames.SEND, true, 0, DdpRdmapFrames.QN_SEND, 9999, 0,
                NvmeCapsules.keepAlive(1)));
        long start = System.nanoTime();
        host.verifiedIo(2, 4);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3), "the other host was slowed down");
        assertTargetSurvived();
    }

    /** More capsules than the queue has entries (NVMe-oF 1.1 7.3: the host must not exceed SQSIZE). */
    @Test
    void capsulesBeyondTheQueueSizeEndThatConnectionOnly() throws Exception {
        try (RawHost raw = attacker(RawHost.admin(target.address))) {
            assertTrue(raw.adminConnect(TargetUnderAttack.SUBNQN).success());
            try {
                for (int i = 0; i < 200; i++) {
                    raw.send(NvmeCapsules.keepAlive(raw.nextCid()));
                }
                raw.drain(Duration.ofSeconds(1));
            } catch (IOException ended) {
                // a Terminate (no receive buffer, RFC 5041 7.2) and a closed connection are the expected answer once
                // the queue overflows; our remaining sends then meet a closed socket
            }
        }
        assertTargetSurvived();
    }
}
