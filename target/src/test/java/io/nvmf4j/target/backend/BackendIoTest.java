package io.nvmf4j.target.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nvmf4j.uring.IoUring;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link BackendIo} on a real file, in both modes: what a poll group sees. Every operation ends through
 * {@code poll()} on the submitting thread, never inside {@code submit}; bytes written come back; FUA, flush, write
 * zeroes and deallocate do what the NVMe command says; a buffer O_DIRECT cannot take (the in-capsule data right
 * after its SQE) goes through a bounce; a namespace at its bound makes its own operations wait and no other's.
 */
class BackendIoTest {

    private static final int BS = 4096;

    @TempDir
    Path dir;

    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        arena.close();
    }

    /** Records each end, in order; answers on the submitting thread only. */
    private static final class Ends implements BackendCompletion {
        final List<Integer> results = new ArrayList<>();
        final Thread owner = Thread.currentThread();
        boolean wrongThread;

        @Override
        public void backendCompleted(int result) {
            wrongThread |= Thread.currentThread() != owner;
            results.add(result);
        }
    }

    private BackendIo io(BackendIoMode mode) throws Exception {
        if (mode == BackendIoMode.URING) {
            assumeTrue(IoUring.unavailableReason() == null, () -> "io_uring: " + IoUring.unavailableReason());
        }
        BackendIo io = BackendIo.open(mode, 64, "test " + mode);
        open.add(io);
        return io;
    }

    private FileBackend file(int blocks) throws Exception {
        Path p = dir.resolve("ns.img");
        Files.write(p, new byte[blocks * BS]);
        FileBackend b = FileBackend.open(p, BS);
        open.add(b);
        return b;
    }

    private static void pollUntil(BackendIo io, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("backend I/O did not end within 10 s: " + io);
            }
            if (io.poll() == 0) {
                Thread.sleep(0, 100_000);
            }
        }
    }

    private MemorySegment random(int length, long seed) {
        MemorySegment s = arena.allocate(length, BS);
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, s, 0, length);
        return s;
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void writtenBlocksReadBackAndEveryEndComesFromPollOnTheSubmittingThread(BackendIoMode mode) throws Exception {
        BackendIo io = io(mode);
        FileBackend file = file(64);
        Ends ends = new Ends();
        MemorySegment data = random(8 * BS, 1);
        io.submit(file, BackendOp.WRITE, 3L * BS, data.byteSize(), data, ends);
        assertEquals(List.of(), ends.results, "nothing ends inside submit");
        pollUntil(io, () -> ends.results.size() == 1);
        assertEquals(List.of(8 * BS), ends.results);

        MemorySegment back = arena.allocate(8 * BS, BS);
        io.submit(file, BackendOp.READ, 3L * BS, back.byteSize(), back, ends);
        pollUntil(io, () -> ends.results.size() == 2);
        assertEquals(8 * BS, ends.results.get(1));
        assertArrayEquals(data.toArray(ValueLayout.JAVA_BYTE), back.toArray(ValueLayout.JAVA_BYTE));
        assertTrue(!ends.wrongThread, "a completion ran on another thread");
        assertEquals(0, io.inFlight());
    }

    @Test
    void aRingNamesEachFileByItsRegisteredSlotAndLetsGoOnceTheBackendCloses() throws Exception {
        BackendIo io = io(BackendIoMode.URING);
        FileBackend first = file(8);
        Path otherPath = dir.resolve("other.img");
        Files.write(otherPath, new byte[8 * BS]);
        FileBackend second = FileBackend.open(otherPath, BS);
        open.add(second);
        assertEquals(0, io.registeredFiles(), "a file is registered on its first operation, not before");
        Ends ends = new Ends();
        MemorySegment data = random(BS, 7);
        io.submit(first, BackendOp.WRITE, 0, BS, data, ends);
        io.submit(second, BackendOp.WRITE, BS, BS, data, ends);
        pollUntil(io, () -> ends.results.size() == 2);
        assertEquals(List.of(BS, BS), ends.results);
        assertEquals(2, io.registeredFiles());
        MemorySegment back = arena.allocate(BS, BS);
        io.submit(second, BackendOp.READ, BS, BS, back, ends);
        pollUntil(io, () -> ends.results.size() == 3);
        assertEquals(-1, data.mismatch(back), "read back through the second file's slot");
        assertEquals(2, io.registeredFiles(), "a second operation reuses the slot");

        second.close();
        io.expire(System.nanoTime(), Long.MAX_VALUE);
        assertEquals(1, io.registeredFiles(), "a closed backend's file is let go at housekeeping");
        io.submit(first, BackendOp.READ, 0, BS, back, ends);
        pollUntil(io, () -> ends.results.size() == 4);
        assertEquals(BS, ends.results.get(3));
        assertEquals(-1, data.mismatch(back));
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void aBufferODirectCannotTakeGoesThroughABounceBothWays(BackendIoMode mode) throws Exception {
        BackendIo io = io(mode);
        FileBackend file = file(16);
        assumeTrue(file.isDirect(), "the file system takes O_DIRECT");
        Ends ends = new Ends();
        // in-capsule data sits right after its 64-byte SQE: not aligned for O_DIRECT
        MemorySegment capsule = arena.allocate(64 + BS, BS);
        MemorySegment inCapsule = capsule.asSlice(64, BS);
        inCapsule.copyFrom(random(BS, 2));
        io.submit(file, BackendOp.WRITE_FUA, 5L * BS, BS, inCapsule, ends);
        pollUntil(io, () -> ends.results.size() == 1);
        assertEquals(BS, ends.results.getFirst());

        MemorySegment misaligned = arena.allocate(64 + BS, BS).asSlice(64, BS);
        io.submit(file, BackendOp.READ, 5L * BS, BS, misaligned, ends);
        pollUntil(io, () -> ends.results.size() == 2);
        assertEquals(BS, ends.results.get(1));
        assertArrayEquals(inCapsule.toArray(ValueLayout.JAVA_BYTE), misaligned.toArray(ValueLayout.JAVA_BYTE));
        byte[] onDisk = Files.readAllBytes(dir.resolve("ns.img"));
        assertArrayEquals(inCapsule.toArray(ValueLayout.JAVA_BYTE), java.util.Arrays.copyOfRange(onDisk, 5 * BS,
                6 * BS), "the bytes are in the file");
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void manyInCapsuleWritesAtOnceEachLandWhereItWasSentWithRegisteredBounces(BackendIoMode mode) throws Exception {
        BackendIo io = io(mode);
        io.registerBuffers(arena.allocate(64L * BS, BS));
        int writes = BackendRing.REGISTERED_BOUNCE_SLOTS + 72; // past the registered bounces: the rest are plain
        FileBackend file = file(writes);
        assumeTrue(file.isDirect(), "the file system takes O_DIRECT");
        Ends ends = new Ends();
        byte[] expected = new byte[writes * BS];
        for (int i = 0; i < writes; i++) {
            MemorySegment inCapsule = arena.allocate(64 + BS, BS).asSlice(64, BS);
            inCapsule.copyFrom(random(BS, 100 + i));
            MemorySegment.copy(inCapsule, ValueLayout.JAVA_BYTE, 0, expected, i * BS, BS);
            io.submit(file, BackendOp.WRITE, (long) i * BS, BS, inCapsule, ends);
        }
        pollUntil(io, () -> ends.results.size() == writes);
        assertTrue(ends.results.stream().allMatch(r -> r == BS), () -> "every write whole: " + ends.results);
        assertArrayEquals(expected, Files.readAllBytes(dir.resolve("ns.img")), "every block holds its own write");
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void writeZeroesAndDeallocateReadBackAsZeroesAndFlushSucceeds(BackendIoMode mode) throws Exception {
        BackendIo io = io(mode);
        FileBackend file = file(32);
        Ends ends = new Ends();
        MemorySegment data = random(32 * BS, 3);
        io.submit(file, BackendOp.WRITE, 0, data.byteSize(), data, ends);
        pollUntil(io, () -> ends.results.size() == 1);
        io.submit(file, BackendOp.WRITE_ZEROES, 4L * BS, 4L * BS, null, ends);
        io.submit(file, BackendOp.DEALLOCATE, 16L * BS, 8L * BS, null, ends);
        io.submit(file, BackendOp.FLUSH, 0, 0, null, ends);
        pollUntil(io, () -> ends.results.size() == 4);
        assertEquals(List.of(32 * BS, 0, 0, 0), ends.results);

        byte[] onDisk = Files.readAllBytes(dir.resolve("ns.img"));
        byte[] written = data.toArray(ValueLayout.JAVA_BYTE);
        for (int block = 0; block < 32; block++) {
            boolean zeroed = (block >= 4 && block < 8) || (block >= 16 && block < 24);
            byte[] expected = zeroed ? new byte[BS] : java.util.Arrays.copyOfRange(written, block * BS,
                    (block + 1) * BS);
            assertArrayEquals(expected, java.util.Arrays.copyOfRange(onDisk, block * BS, (block + 1) * BS),
                    "block " + block);
        }
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void aReadPastTheEndOfTheFileEndsShortAndIsNotReportedAsSuccess(BackendIoMode mode) throws Exception {
        BackendIo io = io(mode);
        FileBackend file = file(4);
        Ends ends = new Ends();
        MemorySegment back = arena.allocate(2 * BS, BS);
        // the handler checks ranges before it submits; the backend checks again and never reads outside
        io.submit(file, BackendOp.READ, 3L * BS, back.byteSize(), back, ends);
        pollUntil(io, () -> ends.results.size() == 1);
        assertTrue(ends.results.getFirst() < 0, () -> "expected an errno, got " + ends.results);
    }

    @Test
    void aNamespaceAtItsBoundWaitsAloneWhileAnotherNamespaceGoesOn() throws Exception {
        BackendIo io = io(BackendIoMode.THREADS);
        StallingBackend slow = new StallingBackend(BS, Duration.ofSeconds(30), 1);
        open.add(slow);
        FileBackend fast = file(8);
        Ends slowEnds = new Ends();
        Ends fastEnds = new Ends();
        io.submit(slow, BackendOp.FLUSH, 0, 0, null, slowEnds);
        io.submit(slow, BackendOp.FLUSH, 0, 0, null, slowEnds); // over its bound of 1: waits
        MemorySegment data = random(BS, 4);
        io.submit(fast, BackendOp.WRITE, 0, BS, data, fastEnds);
        pollUntil(io, () -> fastEnds.results.size() == 1);
        assertEquals(1, io.waiting(), "the blocked namespace's second flush waits for room");
        assertEquals(List.of(), slowEnds.results);
        slow.release();
        pollUntil(io, () -> slowEnds.results.size() == 2);
        assertEquals(List.of(0, 0), slowEnds.results);
    }

    @Test
    void whileAReadWaitsForTheDiskASecondLargeWriteWaitsForTheFirst() throws Exception {
        BackendIo io = io(BackendIoMode.THREADS);
        StallingBackend disk = new StallingBackend(4 * 128 * 1024, Duration.ofSeconds(30), 8);
        open.add(disk);
        int large = 128 * 1024;
        Ends reads = new Ends();
        Ends writes = new Ends();
        io.submit(disk, BackendOp.READ, 0, BS, arena.allocate(BS, BS), reads);
        io.submit(disk, BackendOp.WRITE, large, large, random(large, 5), writes);
        io.submit(disk, BackendOp.WRITE, 2L * large, large, random(large, 6), writes);
        assertEquals(1, io.waiting(), "the second write waits: the reader is not to queue behind both");
        pollUntil(io, () -> disk.started.get() == 2);
        io.poll();
        assertEquals(1, io.waiting(), "and keeps waiting while the first write and the read are in the disk");
        disk.release();
        pollUntil(io, () -> writes.results.size() == 2 && reads.results.size() == 1);
        assertEquals(List.of(large, large), writes.results);
        assertEquals(0, io.waiting());
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void aLargeWriteBesideAReadGoesInPiecesAndLandsWhole(BackendIoMode mode) throws Exception {
        BackendIo io = io(mode);
        int mib = 1024 * 1024;
        FileBackend file = file(2 * mib / BS);
        Ends ends = new Ends();
        MemorySegment data = random(mib, 7);
        io.submit(file, BackendOp.READ, 0, BS, arena.allocate(BS, BS), ends);
        io.submit(file, BackendOp.WRITE_FUA, mib, mib, data, ends);
        pollUntil(io, () -> ends.results.size() == 2);
        assertTrue(ends.results.contains(mib), () -> "the write ends once, whole: " + ends.results);
        assertTrue(io.writePieces() >= 1, "the write went in pieces while the read was in flight");
        byte[] onDisk = Files.readAllBytes(dir.resolve("ns.img"));
        assertArrayEquals(data.toArray(ValueLayout.JAVA_BYTE), java.util.Arrays.copyOfRange(onDisk, mib, 2 * mib));
    }

    @ParameterizedTest
    @EnumSource(value = BackendIoMode.class, names = {"URING", "THREADS"})
    void aLargeWriteOfANamespaceNobodyReadsGoesWhole(BackendIoMode mode) throws Exception {
        BackendIo io = io(mode);
        int mib = 1024 * 1024;
        FileBackend file = file(mib / BS);
        Ends ends = new Ends();
        io.submit(file, BackendOp.WRITE, 0, mib, random(mib, 8), ends);
        pollUntil(io, () -> ends.results.size() == 1);
        assertEquals(List.of(mib), ends.results);
        assertEquals(0, io.writePieces());
    }

    @Test
    void withNoReaderLargeWritesGoAsDeepAsTheNamespaceAllows() throws Exception {
        BackendIo io = io(BackendIoMode.THREADS);
        StallingBackend disk = new StallingBackend(4 * 128 * 1024, Duration.ofSeconds(30), 8);
        open.add(disk);
        int large = 128 * 1024;
        Ends writes = new Ends();
        for (int i = 0; i < 4; i++) {
            io.submit(disk, BackendOp.WRITE, (long) i * large, large, random(large, i), writes);
        }
        assertEquals(0, io.waiting());
        disk.release();
        pollUntil(io, () -> writes.results.size() == 4);
    }

    @Test
    void anOperationOlderThanTheTimeoutIsAnsweredAndItsLateEndReleasesWhatItHeld() throws Exception {
        BackendIo io = io(BackendIoMode.THREADS);
        StallingBackend slow = new StallingBackend(BS, Duration.ofSeconds(30), 4);
        open.add(slow);
        List<Integer> results = new ArrayList<>();
        int[] lateEnds = {0};
        BackendCompletion done = new BackendCompletion() {
            @Override
            public void backendCompleted(int result) {
                results.add(result);
            }

            @Override
            public Runnable backendAbandoned() {
                return () -> lateEnds[0]++;
            }
        };
        io.submit(slow, BackendOp.FLUSH, 0, 0, null, done);
        pollUntil(io, () -> slow.started.get() == 1);
        assertEquals(0, io.expire(System.nanoTime(), Duration.ofSeconds(5).toNanos()), "not old enough yet");
        assertEquals(1, io.expire(System.nanoTime() + Duration.ofSeconds(6).toNanos(),
                Duration.ofSeconds(5).toNanos()));
        assertEquals(List.of(-110), results, "answered -ETIMEDOUT");
        assertEquals(1, io.inFlight(), "still held until the backend lets go");
        slow.release();
        pollUntil(io, () -> lateEnds[0] == 1);
        assertEquals(List.of(-110), results, "answered once only");
        assertEquals(0, io.inFlight());
    }
}
