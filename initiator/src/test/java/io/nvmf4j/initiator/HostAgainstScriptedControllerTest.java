package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.fake.ScriptedController;
import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import io.nvmf4j.protocol.io.IoOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The host library end to end over softiwarp on loopback, against the scripted test double (not the project's
 * target): connect/enable/identify, I/O in every SGL form, splitting above MDTS, statuses, back-pressure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostAgainstScriptedControllerTest {

    private ScriptedController target;
    private NvmeController controller;

    private NvmeController connect(ScriptedController.Script script, int queues, int queueSize) throws Exception {
        target = new ScriptedController(script);
        ConnectOptions options = ConnectOptions.builder(target.address(), script.subsystem)
                .host(HostIdentity.generate()).ioQueues(queues).queueSize(queueSize)
                .provider("softiwarp").connectTimeout(Duration.ofSeconds(5)).commandTimeout(Duration.ofSeconds(5))
                .bufferSize(16384).buffersPerQueue(8).build();
        controller = NvmeController.connect(options);
        return controller;
    }

    @AfterEach
    void tearDown() {
        if (controller != null) {
            controller.close();
        }
        if (target != null) {
            target.close();
        }
    }

    @Test
    void connectSendsLinuxCmRequestsAndConnectDataThenIdentifies() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        NvmeController c = connect(script, 2, 64);
        assertEquals(ControllerState.LIVE, c.state());
        // admin: hrqsize 32 / hsqsize 31 (NVME_AQ_DEPTH); I/O: hrqsize = queue size, hsqsize = sqsize
        assertEquals(3, target.cmRequests.size());
        assertEquals(0, target.cmRequests.get(0).qid().value());
        assertEquals(32, target.cmRequests.get(0).hrqsize());
        assertEquals(31, target.cmRequests.get(0).hsqsize());
        assertEquals(1, target.cmRequests.get(1).qid().value());
        assertEquals(64, target.cmRequests.get(1).hrqsize());
        assertEquals(63, target.cmRequests.get(1).hsqsize());
        // connect data: dynamic cntlid on the admin queue, the allocated one on I/O queues
        assertTrue(target.connectData.get(0).cntlid().isDynamic());
        assertEquals(ControllerId.of(1), target.connectData.get(1).cntlid());
        assertEquals(c.options().host().hostNqn(), target.connectData.get(0).hostNqn());
        assertEquals(c.options().host().hostId(), target.connectData.get(1).hostId());
        // admin Connect data by keyed SGL (no in-capsule data on the admin queue), I/O Connect in-capsule
        List<ScriptedController.Received> connects = target.receivedWithOpcode(FabricsCommandType.OPCODE).stream()
                .filter(r -> r.sqe()[4] == FabricsCommandType.CONNECT.value()).toList();
        assertEquals(4, connects.get(0).sglType(), "admin Connect: keyed data block");
        assertEquals(0, connects.get(1).sglType(), "I/O Connect: data block (in-capsule)");
        assertEquals(1, connects.get(1).sglSubtype(), "offset subtype");
        assertEquals(1024, connects.get(1).dataLength());
        assertEquals(2, c.ioQueueCount());
        assertEquals(64, c.ioQueueSize());
        assertEquals(32 * 1024, c.maxTransferBytes());
        assertEquals(4096, c.inCapsuleDataBytes());
        assertEquals("SCRIPTED0001", c.identify().serialNumber());
        Namespace ns = c.firstNamespace();
        assertEquals(1, ns.nsid());
        assertEquals(512, ns.blockSize());
        assertEquals(8192, ns.blockCount());
    }

    @Test
    void writeThenReadBackEveryPathWithDataVerified() throws Exception {
        NvmeController c = connect(new ScriptedController.Script(), 2, 32);
        Namespace ns = c.firstNamespace();
        Random random = new Random(5);
        // in-capsule (2 KiB), keyed via bounce buffer (12 KiB), split above MDTS and bounce size (200 KiB)
        for (int blocks : new int[] {4, 24, 400}) {
            byte[] data = new byte[blocks * 512];
            random.nextBytes(data);
            long slba = 1000L + blocks;
            ns.write(slba, blocks, MemorySegment.ofArray(data));
            assertArrayEquals(data, target.media().asSlice(slba * 512, data.length).toArray(ValueLayout.JAVA_BYTE));
            byte[] back = new byte[data.length];
            ns.read(slba, blocks, MemorySegment.ofArray(back));
            assertArrayEquals(data, back, "read back " + blocks + " blocks");
        }
        List<ScriptedController.Received> writes = target.receivedIo(IoOpcode.WRITE.code());
        assertEquals(0, writes.get(0).sglType(), "2 KiB write goes in-capsule");
        assertEquals(4, writes.get(1).sglType(), "12 KiB write goes by keyed SGL");
        assertEquals(0xF, writes.get(1).sglSubtype(), "keyed SGL subtype invalidate: the key is the command's own");
        // 400 blocks = 200 KiB: at most 16 KiB (bounce buffer) per command -> 13 commands
        assertEquals(2 + 13, writes.size());
        assertTrue(writes.stream().allMatch(w -> w.dataLength() <= 16384));
    }

    @Test
    void zeroCopyBuffersSplitAtMdtsAndKeepKeys() throws Exception {
        NvmeController c = connect(new ScriptedController.Script(), 1, 32);
        Namespace ns = c.firstNamespace();
        long base;
        try (IoBuffer buffer = c.allocateBuffer(256 * 1024)) {
            base = buffer.segment().address();
            byte[] data = new byte[256 * 1024];
            new Random(9).nextBytes(data);
            MemorySegment.copy(MemorySegment.ofArray(data), 0, buffer.segment(), 0, data.length);
            ns.write(0, 512, buffer, 0);
            buffer.segment().fill((byte) 0);
            ns.read(0, 512, buffer, 0);
            assertArrayEquals(data, buffer.segment().toArray(ValueLayout.JAVA_BYTE));
        }
        List<ScriptedController.Received> reads = target.receivedIo(IoOpcode.READ.code());
        assertEquals(8, reads.size(), "256 KiB at MDTS 32 KiB");
        assertTrue(reads.stream().allMatch(r -> r.dataLength() == 32768 && r.sglType() == 4));
        // each command gets a key of its own over exactly its bytes, which the target invalidates with its response
        for (int i = 0; i < reads.size(); i++) {
            byte[] sqe = reads.get(i).sqe();
            assertEquals(0xF, reads.get(i).sglSubtype());
            long address = MemorySegment.ofArray(sqe).get(ValueLayout.JAVA_LONG_UNALIGNED, 24);
            assertEquals(i * 32768L, address - base, "command " + i + " names its own slice");
            if (i > 0) {
                int key = MemorySegment.ofArray(sqe).get(ValueLayout.JAVA_INT_UNALIGNED, 35);
                int before = MemorySegment.ofArray(reads.get(i - 1).sqe()).get(ValueLayout.JAVA_INT_UNALIGNED, 35);
                assertTrue(key != before, "command " + i + " reuses the key of the one before");
            }
        }
    }

    @Test
    void callbackFormReportsSuccessAndStatusErrors() throws Exception {
        NvmeController c = connect(new ScriptedController.Script(), 1, 32);
        Namespace ns = c.firstNamespace();
        try (IoBuffer buffer = c.allocateBuffer(8192)) {
            buffer.segment().fill((byte) 0x33);
            CompletableFuture<NvmfException> ok = new CompletableFuture<>();
            ns.submitWrite(10, 16, buffer, 0, ok::complete);
            assertEquals(null, ok.get(10, TimeUnit.SECONDS));
            CompletableFuture<NvmfException> bad = new CompletableFuture<>();
            ns.submitRead(8190, 16, buffer, 0, bad::complete);
            NvmfException e = bad.get(10, TimeUnit.SECONDS);
            assertTrue(e instanceof NvmfStatusException s && s.statusCode().orElseThrow() == StatusCode.LBA_RANGE,
                    String.valueOf(e));
        }
        assertEquals((byte) 0x33, target.media().get(ValueLayout.JAVA_BYTE, 10 * 512 + 8191));
    }

    @Test
    void outOfRangeReadFailsWithNamedStatus() throws Exception {
        NvmeController c = connect(new ScriptedController.Script(), 1, 32);
        Namespace ns = c.firstNamespace();
        NvmfStatusException e = assertThrows(NvmfStatusException.class,
                () -> ns.read(8190, 8, MemorySegment.ofArray(new byte[4096])));
        assertEquals(StatusCode.LBA_RANGE, e.statusCode().orElseThrow());
        assertTrue(e.getMessage().contains("LBA_RANGE (0x4080)"), e.getMessage());
        assertTrue(e.doNotRetry());
        // the queue still works afterwards
        ns.read(0, 8, MemorySegment.ofArray(new byte[4096]));
    }

    @Test
    void flushWriteZeroesAndDeallocateReachTheController() throws Exception {
        NvmeController c = connect(new ScriptedController.Script(), 1, 32);
        Namespace ns = c.firstNamespace();
        byte[] ones = new byte[8 * 512];
        java.util.Arrays.fill(ones, (byte) 1);
        ns.write(100, 8, MemorySegment.ofArray(ones));
        ns.writeZeroes(100, 4, false);
        ns.flush();
        byte[] back = new byte[8 * 512];
        ns.read(100, 8, MemorySegment.ofArray(back));
        for (int i = 0; i < back.length; i++) {
            assertEquals(i < 4 * 512 ? 0 : 1, back[i], "byte " + i);
        }
        ns.deallocate(104, 4);
        ns.read(100, 8, MemorySegment.ofArray(back));
        assertArrayEquals(new byte[8 * 512], back);
        assertEquals(1, target.receivedIo(IoOpcode.FLUSH.code()).size());
        assertEquals(1, target.receivedIo(IoOpcode.WRITE_ZEROES.code()).size());
        assertEquals(1, target.receivedIo(IoOpcode.DATASET_MANAGEMENT.code()).size());
    }

    /**
     * Dataset Management with the integral-dataset hints (nvme dsm -w -r -a ...): NR is 0's based in CDW10 bits 7:0,
     * the attributes in CDW11 (IDR bit 0, IDW bit 1, AD bit 2), and each 16-byte range is Context Attributes u32,
     * Length in blocks u32, Starting LBA u64, little endian (NVM Command Set 1.0, Figure 39; struct nvme_dsm_range).
     * Without AD nothing is deallocated.
     */
    @Test
    void datasetManagementCarriesRangesAndAttributesAsTheSpecLaysThemOut() throws Exception {
        NvmeController c = connect(new ScriptedController.Script(), 1, 32);
        Namespace ns = c.firstNamespace();
        byte[] ones = new byte[8 * 512];
        java.util.Arrays.fill(ones, (byte) 1);
        ns.write(200, 8, MemorySegment.ofArray(ones));
        ns.datasetManagement(List.of(new io.nvmf4j.protocol.io.DsmRange(0x01020304, 8, 0x1122334455667788L),
                new io.nvmf4j.protocol.io.DsmRange(0, 0xFFFFFFFFL, 200)), 0x3);
        ScriptedController.Received r = target.receivedIo(IoOpcode.DATASET_MANAGEMENT.code()).get(0);
        MemorySegment sqe = MemorySegment.ofArray(r.sqe());
        java.lang.foreign.ValueLayout.OfInt le = java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED
                .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, sqe.get(le, 40), "CDW10: NR = 2 ranges, 0's based");
        assertEquals(3, sqe.get(le, 44), "CDW11: IDR | IDW");
        assertEquals(32, r.dataLength());
        assertEquals("04030201" + "08000000" + "8877665544332211" + "00000000" + "ffffffff" + "c800000000000000",
                java.util.HexFormat.of().formatHex(target.dsmRanges.get(0)));
        byte[] back = new byte[8 * 512];
        ns.read(200, 8, MemorySegment.ofArray(back));
        assertArrayEquals(ones, back, "hints only: the data stays");
    }

    @Test
    void manyConcurrentRequestsAreQueuedNotRefused() throws Exception {
        NvmeController c = connect(new ScriptedController.Script(), 1, 16);
        Namespace ns = c.firstNamespace();
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        List<byte[]> buffers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            byte[] data = new byte[512];
            java.util.Arrays.fill(data, (byte) i);
            futures.add(ns.writeAsync(i, 1, MemorySegment.ofArray(data)));
        }
        CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        for (int i = 0; i < 200; i++) {
            byte[] back = new byte[512];
            buffers.add(back);
            futures.set(i, ns.readAsync(i, 1, MemorySegment.ofArray(back)));
        }
        CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        for (int i = 0; i < 200; i++) {
            assertEquals((byte) i, buffers.get(i)[0]);
            assertEquals((byte) i, buffers.get(i)[511]);
        }
        assertEquals(List.of(0, 0), c.pendingPerQueue());
    }

    @Test
    void discoveryReadsAllRecordsAndReferrals() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 7; // 7 KiB of entries: two 4 KiB Get Log Page commands
        target = new ScriptedController(script);
        DiscoveryLog log = Discovery.discover(ConnectOptions.discovery(target.address())
                .host(HostIdentity.generate()).provider("softiwarp").build());
        assertEquals(7, log.records().size());
        assertEquals(1, log.referrals().size());
        assertEquals("nqn.2026-12.io.nvmf4j:sub0", log.subsystems().get(0).subnqn());
        assertEquals("127.0.0.1", log.records().get(0).traddr());
        assertEquals("4420", log.records().get(0).trsvcid());
        assertEquals("rdma", log.records().get(0).trtypeName());
        assertTrue(target.cmRequests.stream().allMatch(r -> r.qid().value() == 0), "discovery has no I/O queues");
    }

    @Test
    void discoveryStartsOverWhenTheGenerationCounterMoves() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 2;
        script.bumpGenctrOnFirstRead = 1;
        target = new ScriptedController(script);
        DiscoveryLog log = Discovery.discover(ConnectOptions.discovery(target.address())
                .host(HostIdentity.generate()).provider("softiwarp").build());
        assertEquals(8, log.generation());
        // header, entries, header (moved), header, entries, header
        assertEquals(6, target.receivedWithOpcode(0x02).size());
    }

    @Test
    void cmRejectNamesTheNvmeRdmaStatus() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.rejectStatus = 4;
        NvmfConnectException e = assertThrows(NvmfConnectException.class, () -> connect(script, 1, 32));
        assertTrue(e.getMessage().contains("NVME_RDMA_CM_INVALID_HSQSIZE"), e.getMessage());
    }

    @Test
    void silentIoTimesOutWithinTheCommandTimeout() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.silentIo = true;
        target = new ScriptedController(script);
        controller = NvmeController.connect(ConnectOptions.builder(target.address(), script.subsystem)
                .host(HostIdentity.generate()).ioQueues(1).queueSize(16).provider("softiwarp")
                .commandTimeout(Duration.ofMillis(500)).ctrlLossTimeout(Duration.ofSeconds(1))
                .reconnectDelay(Duration.ofMillis(200)).build());
        Namespace ns = controller.firstNamespace();
        long start = System.nanoTime();
        CompletableFuture<Void> read = ns.readAsync(0, 1, MemorySegment.ofArray(new byte[512]));
        Exception e = assertThrows(Exception.class, () -> read.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof NvmfTimeoutException, String.valueOf(e.getCause()));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3));
        assertFalse(controller.state() == ControllerState.CONNECTING);
    }
}
