package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.io.DatasetManagementCommand;
import io.nvmf4j.protocol.io.DsmRange;
import io.nvmf4j.protocol.io.FlushCommand;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.io.WriteCommand;
import io.nvmf4j.protocol.io.WriteZeroesCommand;
import io.nvmf4j.target.backend.FileBackend;
import io.nvmf4j.target.backend.NamespaceBackend;
import io.nvmf4j.target.backend.RamBackend;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * NVM I/O commands through the loop transport against a RAM namespace (NSID 1) and a file namespace (NSID 2,
 * O_DIRECT on this filesystem), with the statuses nvmet returns for the error paths.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IoCommandsTest {

    private static final int FILE_BYTES = 8 << 20;

    @TempDir
    Path dir;

    private TargetFixture fx;
    private LoopHost host;
    private LoopHost.Queue io;
    private Path image;

    private void start() throws Exception {
        fx = new TargetFixture();
        image = dir.resolve("ns2.img");
        try (RandomAccessFile raf = new RandomAccessFile(image.toFile(), "rw")) {
            raf.setLength(FILE_BYTES);
        }
        fx.subsystem.addNamespace(SubsystemNamespace.of(2, FileBackend.open(image, 512)));
        host = fx.host().connectAndEnable(SUBNQN);
        assertEquals(0, host.connectIo(SUBNQN, 1, 127).cqe().statusField());
        io = host.ioQueues.get(1);
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private NamespaceBackend backend(long nsid) {
        return fx.subsystem.activeNamespace(nsid).backend();
    }

    private Request write(long nsid, long slba, MemorySegment data, boolean fua) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        WriteCommand.create(sqe, nsid, slba, (int) (data.byteSize() / 512)).fua(fua);
        return host.submit(io, sqe, data);
    }

    private Request read(long nsid, long slba, MemorySegment data) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        ReadCommand.create(sqe, nsid, slba, (int) (data.byteSize() / 512));
        return host.submit(io, sqe, data);
    }

    private MemorySegment random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return host.buffer(bytes).copyFrom(MemorySegment.ofArray(b));
    }

    private static long allocatedSectors(Path file) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return Long.parseLong(out);
    }

    @ParameterizedTest(name = "nsid {0}")
    @ValueSource(longs = {1, 2})
    void writtenDataReadsBackAndLandsAtTheRightLba(long nsid) throws Exception {
        start();
        MemorySegment data = random(64 * 1024, nsid);
        Request w = write(nsid, 100, data, false);
        assertEquals(0, w.cqe().statusField());
        assertEquals(DataDirection.HOST_TO_CONTROLLER, w.dataDirection());
        assertEquals(64 * 1024, w.expectedDataLength());
        MemorySegment back = host.buffer(64 * 1024);
        Request r = read(nsid, 100, back);
        assertEquals(0, r.cqe().statusField());
        assertEquals(DataDirection.CONTROLLER_TO_HOST, r.dataDirection());
        assertEquals(-1, back.mismatch(data));
        // straight from the backend: the bytes sit at LBA 100
        MemorySegment direct = host.buffer(512);
        backend(nsid).read(100, direct);
        assertEquals(-1, direct.mismatch(data.asSlice(0, 512)));
        assertEquals(1, fx.subsystem.activeNamespace(nsid).statistics().writeCommands());
        assertEquals(64 * 1024, fx.subsystem.activeNamespace(nsid).statistics().bytesRead());
    }

    @Test
    void fuaWriteAndFlushReachTheFile() throws Exception {
        start();
        MemorySegment data = random(4096, 9);
        assertEquals(0, write(2, 8, data, true).cqe().statusField());
        byte[] onDisk = Files.readAllBytes(image);
        assertEquals(-1, MemorySegment.ofArray(onDisk).asSlice(8 * 512, 4096).mismatch(data));
        SubmissionQueueEntry flush = SubmissionQueueEntry.allocate();
        FlushCommand.create(flush, 2);
        Request f = host.submit(io, flush);
        assertEquals(0, f.cqe().statusField());
        assertEquals(DataDirection.NONE, f.dataDirection());
    }

    @ParameterizedTest(name = "nsid {0}")
    @ValueSource(longs = {1, 2})
    void writeZeroesClearsExactlyTheRange(long nsid) throws Exception {
        start();
        MemorySegment data = random(8 * 512, 3);
        write(nsid, 0, data, false);
        SubmissionQueueEntry wz = SubmissionQueueEntry.allocate();
        WriteZeroesCommand.create(wz, nsid, 2, 3);
        assertEquals(0, host.submit(io, wz).cqe().statusField());
        MemorySegment back = host.buffer(8 * 512);
        read(nsid, 0, back);
        assertEquals(-1, back.asSlice(0, 1024).mismatch(data.asSlice(0, 1024)));
        assertTrue(Wire.isZero(back, 1024, 3 * 512));
        assertEquals(-1, back.asSlice(5 * 512).mismatch(data.asSlice(5 * 512)));
    }

    @Test
    void datasetManagementDeallocatePunchesAHoleInTheFile() throws Exception {
        start();
        MemorySegment data = host.buffer(2 << 20).fill((byte) 0xC3);
        assertEquals(0, write(2, 0, data.asSlice(0, 1 << 20), true).cqe().statusField());
        assertEquals(0, write(2, 2048, data.asSlice(1 << 20), true).cqe().statusField());
        long before = allocatedSectors(image);
        assertTrue(before >= 4096, "2 MiB allocated: " + before);

        MemorySegment ranges = host.buffer(32);
        SubmissionQueueEntry dsm = SubmissionQueueEntry.allocate();
        DatasetManagementCommand.deallocate(dsm, 2, List.of(DsmRange.of(0, 1024), DsmRange.of(3072, 1024)),
                ranges);
        Request r = host.submit(io, dsm, ranges);
        assertEquals(0, r.cqe().statusField());
        assertEquals(DataDirection.HOST_TO_CONTROLLER, r.dataDirection());
        assertEquals(32, r.expectedDataLength());

        long after = allocatedSectors(image);
        assertTrue(after <= before - 2048, "1 MiB of holes: " + before + " -> " + after + " sectors");
        assertEquals(FILE_BYTES, Files.size(image), "size kept");
        MemorySegment back = host.buffer(2 << 20);
        read(2, 0, back.asSlice(0, 1 << 20));
        read(2, 2048, back.asSlice(1 << 20));
        assertTrue(Wire.isZero(back, 0, 512 * 1024), "deallocated range reads zeroes");
        assertEquals((byte) 0xC3, back.get(ValueLayout.JAVA_BYTE, 512 * 1024), "rest untouched");
        assertTrue(Wire.isZero(back, (1 << 20) + 512 * 1024, 512 * 1024));
    }

    @Test
    void datasetManagementWithoutDeallocateIsAcceptedAndChangesNothing() throws Exception {
        start();
        MemorySegment data = random(512, 5);
        write(1, 0, data, false);
        MemorySegment ranges = host.buffer(16);
        SubmissionQueueEntry dsm = SubmissionQueueEntry.allocate();
        DatasetManagementCommand.create(dsm, 1, 1, DatasetManagementCommand.ATTR_IDR).encodeRanges(ranges,
                List.of(DsmRange.of(0, 1)));
        assertEquals(0, host.submit(io, dsm, ranges).cqe().statusField());
        MemorySegment back = host.buffer(512);
        read(1, 0, back);
        assertEquals(-1, back.mismatch(data));
    }

    @ParameterizedTest(name = "nsid {0}")
    @ValueSource(longs = {1, 2})
    void lbaOutOfRangeIsRefusedWithTheLbaLoggedAndNothingWritten(long nsid) throws Exception {
        start();
        long blocks = backend(nsid).blockCount();
        Request w = write(nsid, blocks - 1, random(1024, 1), false);
        assertEquals(0x6080, w.cqe().statusField(), "LBA_RANGE | DNR | More");
        Request r = read(nsid, blocks, host.buffer(512));
        assertEquals(0x6080, r.cqe().statusField());
        SubmissionQueueEntry wz = SubmissionQueueEntry.allocate();
        WriteZeroesCommand.create(wz, nsid, blocks - 2, 3);
        assertEquals(0x6080, host.submit(io, wz).cqe().statusField());
        MemorySegment ranges = host.buffer(16);
        SubmissionQueueEntry dsm = SubmissionQueueEntry.allocate();
        DatasetManagementCommand.deallocate(dsm, nsid, List.of(DsmRange.of(blocks, 1)), ranges);
        assertEquals(0x6080, host.submit(io, dsm, ranges).cqe().statusField());
        assertEquals(0, fx.subsystem.activeNamespace(nsid).statistics().writeCommands());
        assertEquals(4, host.controller().errorLog().errorCount());
    }

    @Test
    void invalidNamespaceInvalidOpcodeAndDisabledNamespace() throws Exception {
        start();
        Request r = read(9, 0, host.buffer(512));
        assertEquals(0x600B, r.cqe().statusField(), "INVALID_NS | DNR | More");
        SubmissionQueueEntry compare = SubmissionQueueEntry.allocate();
        compare.opcode(0x05).nsid(1); // Compare: not supported
        assertEquals(0x6001, host.submit(io, compare).cqe().statusField(), "INVALID_OPCODE | DNR | More");
        fx.subsystem.enableNamespace(2, false);
        Request disabled = read(2, 0, host.buffer(512));
        assertEquals(0x2300, disabled.cqe().statusField(), "INTERNAL_PATH_ERROR | More: retry on another path");
    }

    @Test
    void sglLengthThatDisagreesWithTheCommandIsDataSglLengthInvalid() throws Exception {
        start();
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        WriteCommand.create(sqe, 1, 0, 8);
        Request r = host.submit(io, sqe, host.buffer(2048));
        assertEquals(0x600F, r.cqe().statusField());
        SubmissionQueueEntry flush = SubmissionQueueEntry.allocate();
        FlushCommand.create(flush, 1);
        assertEquals(0x600F, host.submit(io, flush, host.buffer(512)).cqe().statusField());
    }

    @Test
    void transferBeyondMdtsIsAnInvalidField() throws Exception {
        start();
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        ReadCommand.create(sqe, 1, 0, 4096); // 2 MiB > MDTS 1 MiB
        sqe.psdt(1).cid(9);
        Request r = new Request().reset(sqe);
        assertTrue(!io.sq().prepare(r), "refused before the transport allocates a buffer");
        assertEquals(0x6002, r.cqe().statusField());
    }

    @Test
    void fusedCommandsAndPrpDataPointersAreInvalidFields() throws Exception {
        start();
        SubmissionQueueEntry fused = SubmissionQueueEntry.allocate();
        ReadCommand.create(fused, 1, 0, 1);
        fused.flags(0x01);
        Request r = host.submit(io, fused, host.buffer(512)); // submit sets PSDT, keeps FUSE
        assertEquals(0x6002, r.cqe().statusField());
        SubmissionQueueEntry prp = SubmissionQueueEntry.allocate();
        ReadCommand.create(prp, 1, 0, 1);
        prp.cid(77);
        Request p = new Request().reset(prp);
        assertTrue(!io.sq().prepare(p));
        assertEquals(0x6002, p.cqe().statusField(), "PSDT 00b (PRP) on a fabric");
    }

    @Test
    void volatileWriteCacheOffMakesEveryWriteStable() throws Exception {
        start();
        host.controller().volatileWriteCacheEnabled(false);
        MemorySegment data = random(512, 11);
        assertEquals(0, write(2, 1, data, false).cqe().statusField());
        assertEquals(-1, MemorySegment.ofArray(Files.readAllBytes(image)).asSlice(512, 512).mismatch(data));
    }

    @Test
    void disconnectClosesAnIoQueueAndIsRefusedOnTheAdminQueue() throws Exception {
        start();
        Request d = host.submit(io, LoopHost.disconnectSqe());
        assertEquals(0, d.cqe().statusField());
        assertTrue(d.disconnectAfterResponse());
        Request onAdmin = host.submit(host.admin, LoopHost.disconnectSqe());
        assertEquals(0x6185, onAdmin.cqe().statusField(), "INVALID_QUEUE_TYPE | DNR | More");
        Request propertyOnIo = host.submit(io, LoopHost.propertyGet(0, true));
        assertEquals(0x6001, propertyOnIo.cqe().statusField(), "Property Get is admin-only");
    }

    @Test
    void aBackendOf4096ByteBlocksSizesTransfersInItsBlocks() throws Exception {
        start();
        fx.subsystem.addNamespace(SubsystemNamespace.of(3, RamBackend.allocate(1 << 20, 4096)));
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        WriteCommand.create(sqe, 3, 255, 1);
        Request w = host.submit(io, sqe, random(4096, 4));
        assertEquals(0, w.cqe().statusField());
        assertEquals(4096, w.expectedDataLength());
        SubmissionQueueEntry past = SubmissionQueueEntry.allocate();
        WriteCommand.create(past, 3, 256, 1);
        assertEquals(0x6080, host.submit(io, past, host.buffer(4096)).cqe().statusField());
        assertEquals(SUBNQN, fx.subsystem.nqn().value());
    }
}
