package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * File I/O through the ring on an O_DIRECT descriptor, 4096-aligned buffers. The file lives in the build directory,
 * not java.io.tmpdir: a tmpfs there may refuse O_DIRECT or FALLOC_FL_ZERO_RANGE. A wait stuck in io_uring_enter
 * cannot be interrupted: only a separate thread bounds it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoUringFileTest {
    private static final int BLOCK = 4096;
    private static final int EBADF = 9;

    private Path dir;
    private Path file;
    private int fd = -1;
    private IoUring ring;
    private Arena arena;

    @BeforeAll
    static void ringAvailable() {
        RingAssumptions.assumeRingAvailable();
    }

    @BeforeEach
    @SuppressWarnings("MustBeClosedChecker") // closed in @AfterEach: the test body runs on another thread than @BeforeEach
    void openFileAndRing() throws Exception {
        dir = Files.createTempDirectory(Path.of("target"), "iouring-");
        file = Files.createFile(dir.resolve("data"));
        fd = PosixFiles.openDirect(file);
        ring = IoUring.open(8);
        arena = Arena.ofShared(); // the test body runs on the timeout thread, not the one of @BeforeEach
    }

    @AfterEach
    void closeEverything() throws IOException {
        if (ring != null) {
            ring.close();
        }
        if (arena != null) {
            arena.close();
        }
        if (fd >= 0) {
            PosixFiles.close(fd);
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private MemorySegment aligned(int size) {
        return arena.allocate(size, BLOCK);
    }

    private static MemorySegment pattern(MemorySegment segment, int seed) {
        for (long i = 0; i < segment.byteSize(); i++) {
            segment.set(JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return segment;
    }

    /** Runs what is prepared to completion and returns the result of {@code userData}. */
    private int complete(long userData) throws IoUringException {
        Completions c = new Completions();
        c.awaitTotal(ring, 1);
        return c.result(userData);
    }

    @Test
    void aWriteIsReadBackThroughTheRing() throws Exception {
        MemorySegment out = pattern(aligned(2 * BLOCK), 1);
        assertTrue(ring.prepareWrite(fd, out, BLOCK, 0, 1));
        assertEquals(2 * BLOCK, complete(1));

        MemorySegment in = aligned(2 * BLOCK);
        assertTrue(ring.prepareRead(fd, in, BLOCK, 2));
        assertEquals(2 * BLOCK, complete(2));
        assertEquals(-1, out.mismatch(in));

        byte[] onDisk = Files.readAllBytes(file);
        assertEquals(3 * BLOCK, onDisk.length);
        assertArrayEquals(out.toArray(JAVA_BYTE), Arrays.copyOfRange(onDisk, BLOCK, 3 * BLOCK));
    }

    @Test
    void aWriteIsReadBackThroughRegisteredBuffers() throws Exception {
        MemorySegment out = pattern(aligned(2 * BLOCK), 2);
        MemorySegment in = aligned(2 * BLOCK);
        ring.registerBuffers(out, in);
        assertTrue(ring.prepareWriteFixed(fd, out, 0, ring.registeredBufferIndex(out), 0, 1));
        assertEquals(2 * BLOCK, complete(1));

        MemorySegment secondHalf = in.asSlice(BLOCK, BLOCK);
        assertTrue(ring.prepareReadFixed(fd, secondHalf, BLOCK, ring.registeredBufferIndex(secondHalf), 2));
        assertEquals(BLOCK, complete(2));
        assertEquals(-1, out.asSlice(BLOCK, BLOCK).mismatch(secondHalf));
    }

    @Test
    void aRegisteredFileIsUsedByItsSlotAndHeldUntilTheSlotIsEmptied() throws Exception {
        ring.registerFileTable(4);
        assertEquals(4, ring.fileSlots());
        ring.setFile(2, fd);
        MemorySegment out = pattern(aligned(BLOCK), 3);
        assertTrue(ring.prepareWrite(IoUring.fixedFile(2), out, 0, 0, 1));
        assertEquals(BLOCK, complete(1));
        assertArrayEquals(out.toArray(JAVA_BYTE), Files.readAllBytes(file));

        // the table holds its own reference: the owner's close does not end I/O through the slot
        PosixFiles.close(fd);
        fd = -1;
        MemorySegment in = aligned(BLOCK);
        assertTrue(ring.prepareRead(IoUring.fixedFile(2), in, 0, 2));
        assertEquals(BLOCK, complete(2));
        assertEquals(-1, out.mismatch(in));

        ring.setFile(2, -1);
        assertTrue(ring.prepareRead(IoUring.fixedFile(2), in, 0, 3));
        assertEquals(-EBADF, complete(3), "an emptied slot");
        assertTrue(ring.prepareRead(IoUring.fixedFile(1), in, 0, 4));
        assertEquals(-EBADF, complete(4), "a slot never filled");
    }

    @Test
    void aDsyncWriteCompletesWithItsLength() throws Exception {
        MemorySegment out = pattern(aligned(BLOCK), 3);
        assertTrue(ring.prepareWrite(fd, out, 0, IoUring.RWF_DSYNC, 1));
        assertEquals(BLOCK, complete(1));
        MemorySegment in = aligned(BLOCK);
        assertTrue(ring.prepareRead(fd, in, 0, 2));
        assertEquals(BLOCK, complete(2));
        assertEquals(-1, out.mismatch(in));
    }

    @Test
    void fsyncAndFdatasyncSucceed() throws Exception {
        assertTrue(ring.prepareWrite(fd, pattern(aligned(BLOCK), 4), 0, 0, 1));
        assertEquals(BLOCK, complete(1));
        assertTrue(ring.prepareFsync(fd, false, 2));
        assertEquals(0, complete(2));
        assertTrue(ring.prepareFsync(fd, true, 3));
        assertEquals(0, complete(3));
    }

    @Test
    void zeroRangeAndPunchHoleReadBackAsZeroes() throws Exception {
        MemorySegment out = pattern(aligned(4 * BLOCK), 5);
        assertTrue(ring.prepareWrite(fd, out, 0, 0, 1));
        assertEquals(4 * BLOCK, complete(1));

        assertTrue(ring.prepareFallocate(fd, IoUring.FALLOC_FL_ZERO_RANGE, BLOCK, BLOCK, 2));
        assertEquals(0, complete(2));
        assertTrue(ring.prepareFallocate(fd, IoUring.FALLOC_FL_PUNCH_HOLE | IoUring.FALLOC_FL_KEEP_SIZE,
                2 * BLOCK, BLOCK, 3));
        assertEquals(0, complete(3));

        MemorySegment in = aligned(4 * BLOCK);
        assertTrue(ring.prepareRead(fd, in, 0, 4));
        assertEquals(4 * BLOCK, complete(4), "the file keeps its size");
        MemorySegment zeroes = aligned(2 * BLOCK);
        assertEquals(-1, in.asSlice(BLOCK, 2 * BLOCK).mismatch(zeroes), "zeroed and punched blocks");
        assertEquals(-1, in.asSlice(0, BLOCK).mismatch(out.asSlice(0, BLOCK)));
        assertEquals(-1, in.asSlice(3 * BLOCK, BLOCK).mismatch(out.asSlice(3 * BLOCK, BLOCK)));
    }

    @Test
    void fallocateWithoutKeepSizeGrowsTheFile() throws Exception {
        assertTrue(ring.prepareFallocate(fd, 0, 0, 3 * BLOCK, 1));
        assertEquals(0, complete(1));
        assertEquals(3 * BLOCK, Files.size(file));
    }

    @Test
    void aReadPastTheEndOfTheFileReturnsZero() throws Exception {
        assertTrue(ring.prepareWrite(fd, pattern(aligned(BLOCK), 6), 0, 0, 1));
        assertEquals(BLOCK, complete(1));
        assertTrue(ring.prepareRead(fd, aligned(BLOCK), 8 * BLOCK, 2));
        assertEquals(0, complete(2));
    }
}
