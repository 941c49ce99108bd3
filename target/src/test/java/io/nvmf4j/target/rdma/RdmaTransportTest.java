package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRejectStatus;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.target.Port;
import io.nvmf4j.verbs.ConnectionRejectedException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RDMA binding against a scripted host over softiwarp on loopback: CM private data, fabrics commands, data by
 * keyed SGL (RDMA Read / RDMA Write + Send) and in capsule, Send with Invalidate, SQ head, SGL and MDTS errors,
 * and a host that vanishes mid-command.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaTransportTest {

    @TempDir
    Path dir;

    RdmaTargetFixture fixture;

    @BeforeEach
    void start() throws Exception {
        fixture = new RdmaTargetFixture(dir);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    private RdmaCmRejectStatus rejectOf(byte[] privateData) {
        ConnectionRejectedException e = assertThrows(ConnectionRejectedException.class,
                () -> ScriptedRdmaHost.connect(fixture.address, privateData, 32).close());
        RdmaCmReject reject = RdmaCmReject.decode(MemorySegment.ofArray(e.privateData()));
        assertEquals(0, reject.recfmt());
        return reject.status().orElseThrow();
    }

    private static Status status(ScriptedRdmaHost.Response r) {
        return Status.fromField(r.status());
    }

    private static void assertStatus(StatusCode expected, boolean dnr, ScriptedRdmaHost.Response r) {
        Status s = status(r);
        assertTrue(s.is(expected), () -> "expected " + expected + " got " + s);
        assertEquals(dnr, s.dnr(), "DNR of " + s);
    }

    private ScriptedRdmaHost adminEnabled() throws Exception {
        return RdmaHosts.adminEnabled(fixture);
    }

    private ScriptedRdmaHost ioQueue(int cntlid, int qid) throws Exception {
        return RdmaHosts.ioQueue(fixture, cntlid, qid);
    }

    private static int cntlid(ScriptedRdmaHost.Response connectResponse) {
        return connectResponse.cqe().dw0() & 0xFFFF;
    }

    // ---- CM private data ----

    @Test
    void aTcpPortIsRefusedByTheRdmaTransport() {
        Port tcp = Port.tcp(9, "127.0.0.1", "0").build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> fixture.transport.listen(tcp));
        assertTrue(e.getMessage().contains("not an RDMA port"), e.getMessage());
    }

    @Test
    void recordFormatOtherThanZeroIsRejectedWithInvalidRecfmt() {
        byte[] pd = new RdmaCmRequest(1, QueueId.of(0), 32, 31, io.nvmf4j.protocol.ControllerId.of(0)).toBytes();
        assertEquals(RdmaCmRejectStatus.INVALID_RECFMT, rejectOf(pd));
    }

    @Test
    void adminQueueOfMoreThan32EntriesIsRejectedWithInvalidHsqsize() {
        assertEquals(RdmaCmRejectStatus.INVALID_HSQSIZE,
                rejectOf(RdmaCmRequest.of(QueueId.of(0), 33, 32).toBytes()));
    }

    @Test
    void ioQueueBeyondTheMaximumQueueSizeIsRejectedWithInvalidHsqsize() {
        int tooMany = fixture.port.maxQueueSize() + 1;
        assertEquals(RdmaCmRejectStatus.INVALID_HSQSIZE,
                rejectOf(RdmaCmRequest.of(QueueId.of(1), tooMany, tooMany - 1).toBytes()));
    }

    @Test
    void hostReceiveQueueSmallerThanItsSubmissionQueueIsRejectedWithInvalidHrqsize() {
        assertEquals(RdmaCmRejectStatus.INVALID_HRQSIZE,
                rejectOf(RdmaCmRequest.of(QueueId.of(1), 8, 31).toBytes()));
    }

    @Test
    void privateDataShorterThan32BytesIsRejectedWithInvalidLength() {
        assertEquals(RdmaCmRejectStatus.INVALID_LEN, rejectOf(new byte[16]));
    }

    @Test
    void acceptAnswersRecfmtZeroAndCrqsizeOfHsqsizePlusOne() throws Exception {
        try (ScriptedRdmaHost host = ScriptedRdmaHost.connect(fixture.address,
                RdmaCmRequest.of(QueueId.of(0), 32, 15).toBytes(), 32)) {
            assertEquals(0, host.accept.recfmt());
            assertEquals(16, host.accept.crqsize());
        }
    }

    // ---- admin queue ----

    @Test
    void adminConnectPropertiesAndIdentifyOverKeyedSgl() throws Exception {
        try (ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
            ScriptedRdmaHost.Response connect = admin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                    RdmaTargetFixture.HOST);
            assertEquals(0, connect.status(), () -> "Connect: " + status(connect));
            assertTrue(cntlid(connect) >= 1);
            assertEquals(1, connect.sqHead(), "SQ head after the first command");

            ScriptedRdmaHost.Response cap = admin.propertyGet(0x0, true);
            assertEquals(0, cap.status());
            assertEquals(127, cap.cqe().result() & 0xFFFF, "CAP.MQES = max queue size - 1");
            assertEquals(2, cap.sqHead());

            assertEquals(0, admin.propertySet(0x14, ScriptedRdmaHost.CC_ENABLE_NVM).status());
            ScriptedRdmaHost.Response csts = admin.propertyGet(0x1C, false);
            assertEquals(1, csts.cqe().dw0() & 1, "CSTS.RDY");
            assertEquals(4, csts.sqHead());

            admin.data.asSlice(8192, 4096).fill((byte) 0x5A);
            ScriptedRdmaHost.Response id = admin.identify(1, 0, 8192, false);
            assertEquals(0, id.status(), () -> "Identify: " + status(id));
            assertFalse(id.withInvalidate());
            MemorySegment ctrl = admin.data.asSlice(8192, 4096);
            String serial = new String(ctrl.asSlice(4, 20).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
            assertEquals("NVMF4JRDMA0001", serial.trim());
            int ioccsz = ctrl.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 1792);
            assertEquals((64 + fixture.port.inlineDataSize()) / 16, ioccsz, "IOCCSZ = (SQE + in-capsule data) / 16");
            assertEquals(5, id.sqHead());
        }
    }

    @Test
    void identifyWithInvalidateKeyIsAnsweredBySendWithInvalidate() throws Exception {
        try (ScriptedRdmaHost admin = adminEnabled()) {
            ScriptedRdmaHost.Response id = admin.identify(1, 0, 0, true);
            assertEquals(0, id.status());
            assertTrue(id.withInvalidate(), "response came as Send with Invalidate");
            assertEquals(admin.window.rkey(), id.invalidatedRkey());
            assertFalse(admin.window.isBound(), "the window the target invalidated");
            // the next command, with the buffer's own key, works
            ScriptedRdmaHost.Response again = admin.identify(1, 0, 0, false);
            assertEquals(0, again.status());
            assertFalse(again.withInvalidate());
        }
    }

    @Test
    void connectOfAHostNotAllowedFailsWithConnectInvalidHost() throws Exception {
        try (ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
            ScriptedRdmaHost.Response r = admin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                    RdmaTargetFixture.OTHER_HOST);
            Status s = status(r);
            assertEquals(1, s.sct());
            assertEquals(0x84, s.sc(), () -> "Connect Invalid Host expected, got " + s);
        }
    }

    // ---- I/O ----

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private void writeThenReadBack(long nsid, int blockSize) throws Exception {
        writeThenReadBack(nsid, blockSize, 16);
    }

    private void writeThenReadBack(long nsid, int blockSize, int blocks) throws Exception {
        try (ScriptedRdmaHost _ = adminEnabled()) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = ioQueue(cntlid, 1)) {
                int length = blocks * blockSize;
                byte[] bytes = pattern(length, nsid);
                MemorySegment.copy(MemorySegment.ofArray(bytes), 0, io.data, 65536, length);
                SubmissionQueueEntry w = io.readWrite(0x01, nsid, 3, blocks);
                io.keyed(w, 65536, length, false);
                ScriptedRdmaHost.Response wr = io.execute();
                assertEquals(0, wr.status(), () -> "Write: " + status(wr));

                io.data.asSlice(1 << 20, length).fill((byte) 0);
                SubmissionQueueEntry r = io.readWrite(0x02, nsid, 3, blocks);
                io.keyed(r, 1 << 20, length, false);
                ScriptedRdmaHost.Response rd = io.execute();
                assertEquals(0, rd.status(), () -> "Read: " + status(rd));
                assertArrayEquals(bytes, io.data.asSlice(1 << 20, length).toArray(ValueLayout.JAVA_BYTE));
                assertEquals(3, rd.sqHead(), "Connect, Write, Read");
            }
        }
    }

    @Test
    void hostWriteWithKeyedSglIsFetchedByRdmaReadAndReadBackByRdmaWriteOnRam() throws Exception {
        writeThenReadBack(1, 512);
        byte[] expected = pattern(16 * 512, 1);
        MemorySegment onDisk = java.lang.foreign.Arena.ofAuto().allocate(16 * 512, 4096);
        fixture.ram.read(3, onDisk);
        assertArrayEquals(expected, onDisk.toArray(ValueLayout.JAVA_BYTE), "bytes in the RAM namespace");
    }

    @Test
    void aRamTransferOfMorePiecesThanOneIsCopiedAcrossPollRoundsAndReadsBackWhole() throws Exception {
        int blocks = 1031; // 527,872 bytes: four whole 128 KiB pieces and a short one, each way
        writeThenReadBack(1, 512, blocks);
        byte[] expected = pattern(blocks * 512, 1);
        MemorySegment onDisk = java.lang.foreign.Arena.ofAuto().allocate(blocks * 512L, 4096);
        fixture.ram.read(3, onDisk);
        assertArrayEquals(expected, onDisk.toArray(ValueLayout.JAVA_BYTE), "bytes in the RAM namespace");
        MemorySegment after = java.lang.foreign.Arena.ofAuto().allocate(512, 4096);
        fixture.ram.read(3 + blocks, after);
        assertArrayEquals(new byte[512], after.toArray(ValueLayout.JAVA_BYTE), "nothing past the range");
    }

    @Test
    void hostWriteWithKeyedSglIsFetchedByRdmaReadAndReadBackByRdmaWriteOnFile() throws Exception {
        writeThenReadBack(2, 4096);
        byte[] onDisk = java.nio.file.Files.readAllBytes(fixture.image);
        byte[] expected = pattern(16 * 4096, 2);
        assertArrayEquals(expected, java.util.Arrays.copyOfRange(onDisk, 3 * 4096, 19 * 4096),
                "bytes in the file namespace");
    }

    @Test
    void writeWithInCapsuleDataLandsOnTheNamespace() throws Exception {
        try (ScriptedRdmaHost _ = adminEnabled()) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = ioQueue(cntlid, 1)) {
                byte[] bytes = pattern(4096, 7);
                SubmissionQueueEntry w = io.readWrite(0x01, 1, 100, 8);
                int len = io.inCapsule(w, bytes);
                ScriptedRdmaHost.Response r = io.execute(len);
                assertEquals(0, r.status(), () -> "in-capsule Write: " + status(r));
                MemorySegment onDisk = java.lang.foreign.Arena.ofAuto().allocate(4096, 4096);
                fixture.ram.read(100, onDisk);
                assertArrayEquals(bytes, onDisk.toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }

    @Test
    void inCapsuleDataBeyondTheCapsuleIsSglOffsetInvalid() throws Exception {
        try (ScriptedRdmaHost _ = adminEnabled()) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = ioQueue(cntlid, 1)) {
                SubmissionQueueEntry w = io.readWrite(0x01, 1, 0, 8);
                io.inCapsule(w, new byte[4096]);
                // claims 4096 bytes at offset 512: past the data that came with the capsule
                DataBlockDescriptor.inCapsule(512, 4096).encode(w.dptr());
                ScriptedRdmaHost.Response r = io.execute(64 + 4096);
                assertStatus(StatusCode.SGL_INVALID_OFFSET, true, r);
            }
        }
    }

    @Test
    void unsupportedSglDescriptorsGetTheNvmetStatuses() throws Exception {
        try (ScriptedRdmaHost admin = adminEnabled()) {
            // last segment descriptor (3h): SGL Descriptor Type Invalid
            SubmissionQueueEntry sqe = admin.newSqe(0x06);
            sqe.cdw(10, 1);
            sqe.dptr().set(ValueLayout.JAVA_BYTE, 15, (byte) 0x30);
            assertStatus(StatusCode.SGL_INVALID_TYPE, true, admin.execute());
            // data block with the address subtype: Invalid Field
            sqe = admin.newSqe(0x06);
            sqe.cdw(10, 1);
            DataBlockDescriptor.atAddress(0x1000, 4096).encode(sqe.dptr());
            assertStatus(StatusCode.INVALID_FIELD, true, admin.execute());
            // in-capsule data for a command that returns data: Invalid Field
            sqe = admin.newSqe(0x06);
            sqe.cdw(10, 1);
            DataBlockDescriptor.inCapsule(0, 4096).encode(sqe.dptr());
            assertStatus(StatusCode.INVALID_FIELD, true, admin.execute());
            // keyed subtype 1h: Invalid Field
            sqe = admin.newSqe(0x06);
            sqe.cdw(10, 1);
            admin.keyed(sqe, 0, 4096, false);
            sqe.dptr().set(ValueLayout.JAVA_BYTE, 15, (byte) 0x41);
            assertStatus(StatusCode.INVALID_FIELD, true, admin.execute());
            // the queue still works
            assertEquals(0, admin.identify(1, 0, 0, false).status());
        }
    }

    @Test
    void transfersBeyondMdtsAreRefused() throws Exception {
        try (ScriptedRdmaHost _ = adminEnabled()) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            try (ScriptedRdmaHost io = ioQueue(cntlid, 1)) {
                long mdtsBytes = fixture.port.maxDataTransferBytes();
                int blocks = (int) (mdtsBytes / 512) + 8;
                SubmissionQueueEntry r = io.readWrite(0x02, 1, 0, blocks);
                io.keyed(r, 0, (int) Math.min(blocks * 512L, 0xFF_FFFF), false);
                assertStatus(StatusCode.INVALID_FIELD, true, io.execute());
                // an SGL longer than MDTS on a small read: Data SGL Length Invalid, no buffer taken
                r = io.readWrite(0x02, 1, 0, 1);
                io.keyed(r, 0, (int) mdtsBytes + 4096, false);
                assertStatus(StatusCode.SGL_INVALID_DATA, true, io.execute());
            }
        }
    }

    @Test
    void disconnectCommandClosesTheQueue() throws Exception {
        try (ScriptedRdmaHost admin = adminEnabled()) {
            int cntlid = fixture.subsystem.controllers().iterator().next().id();
            ScriptedRdmaHost io = ioQueue(cntlid, 1);
            try {
                assertEquals(2, fixture.transport.queueCount());
                assertEquals(0, io.disconnectCommand().status());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (fixture.transport.queueCount() > 1 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(1, fixture.transport.queueCount(), "the I/O queue is gone, the admin queue stays");
            } finally {
                io.close();
            }
            assertEquals(0, admin.identify(1, 0, 0, false).status());
        }
    }

    @Test
    void hostThatVanishesMidCommandLeavesTheTargetServingTheNext() throws Exception {
        ScriptedRdmaHost admin = adminEnabled();
        int cntlid = fixture.subsystem.controllers().iterator().next().id();
        ScriptedRdmaHost io = ioQueue(cntlid, 1);
        SubmissionQueueEntry w = io.readWrite(0x01, 1, 0, 256);
        io.keyed(w, 0, 256 * 512, false);
        io.send(64);
        io.close(); // gone before the target's RDMA Read can finish
        admin.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (fixture.transport.queueCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, fixture.transport.queueCount(), "both queues released");
        try (ScriptedRdmaHost next = adminEnabled()) {
            assertEquals(0, next.identify(1, 0, 0, false).status());
        }
    }

    /**
     * On an I/O queue of the (only) controller: a Read (0x02) or Write (0x01) of 8 blocks whose keyed SGL names a
     * key the host never registered; waits up to 10 s for the connection to end, as {@code what} says it must.
     */
    private void sendWithAKeyNotRegisteredAndAwaitTheEnd(int opcode, String what) throws Exception {
        int cntlid = fixture.subsystem.controllers().iterator().next().id();
        ScriptedRdmaHost io = ioQueue(cntlid, 1);
        try {
            SubmissionQueueEntry sqe = io.readWrite(opcode, 1, 0, 8);
            new io.nvmf4j.protocol.sgl.KeyedSglDescriptor(io.dataRegion.address(), 4096,
                    io.dataRegion.rkey() ^ 0x5500, false).encode(sqe.dptr());
            io.send(64);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (io.connection.isConnected() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertFalse(io.connection.isConnected(), what);
        } finally {
            io.close();
        }
    }

    /**
     * The target's RDMA Write of read data is unsignaled (as nvmet-rdma's): with a key the host never registered it
     * fails at the host, whose Terminate ends the connection; the failed Write reports, the Send behind it is
     * flushed, and the queue is released with its buffer given back, nothing left counted as outstanding.
     */
    @Test
    void aReadWithABadKeyEndsThatConnectionAndGivesItsBufferAndQueueBack() throws Exception {
        try (ScriptedRdmaHost admin = adminEnabled()) {
            sendWithAKeyNotRegisteredAndAwaitTheEnd(0x02, "the RDMA Write with an unknown key ended the connection");
            // released once the flushes came (milliseconds), not by the poll group's fallback for flushes that never
            // come (QueueTeardown.DRAIN_NANOS after the teardown began, which was after the host saw its end)
            long deadline = System.nanoTime() + QueueTeardown.DRAIN_NANOS - TimeUnit.SECONDS.toNanos(1);
            PollGroupStats stats = fixture.transport.pollGroupStats().get(0);
            while ((stats.queues() != 1 || stats.bufferBytesUsed() != 0) && System.nanoTime() < deadline) {
                Thread.sleep(10);
                stats = fixture.transport.pollGroupStats().get(0);
            }
            assertEquals(1, stats.queues(), "the I/O queue is released once its work requests are flushed");
            assertEquals(0, stats.bufferBytesUsed(), "the read's buffer is back in the pool");
            assertEquals(0, admin.identify(1, 0, 0, false).status());
        }
    }

    @Test
    void aWriteWithABadKeyEndsOnlyThatConnection() throws Exception {
        try (ScriptedRdmaHost admin = adminEnabled()) {
            sendWithAKeyNotRegisteredAndAwaitTheEnd(0x01, "the RDMA Read with an unknown key ended the connection");
            // the admin queue of the same controller on another connection is untouched
            assertEquals(0, admin.identify(1, 0, 0, false).status());
            try (ScriptedRdmaHost other = adminEnabled()) {
                assertEquals(0, other.identify(1, 0, 0, false).status());
            }
        }
    }
}
