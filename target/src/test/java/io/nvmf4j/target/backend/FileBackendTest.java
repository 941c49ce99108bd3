package io.nvmf4j.target.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileBackendTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    private Path image(long size) throws IOException {
        Path file = dir.resolve("disk.img");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
        }
        return file;
    }

    /** Allocated 512-byte blocks of a file, as {@code stat -c %b} reports them. */
    private static long allocatedBlocks(Path file) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return Long.parseLong(out);
    }

    private static byte[] pattern(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void opensWithODirectOnADiskFilesystemAndSaysSo() throws Exception {
        String fsType = Files.getFileStore(dir).type();
        try (FileBackend backend = FileBackend.open(image(MIB), 512)) {
            boolean expectDirect = !fsType.equals("tmpfs");
            assertEquals(expectDirect, backend.isDirect(), "filesystem " + fsType);
            assertTrue(backend.description().contains(expectDirect ? "O_DIRECT" : "buffered"));
            assertEquals(MIB / 512, backend.blockCount());
        }
    }

    @Test
    void writtenBlocksReadBackFromNativeHeapAndUnalignedBuffers() throws Exception {
        Path file = image(4 * MIB);
        for (boolean direct : new boolean[] {true, false}) {
            try (FileBackend backend = FileBackend.open(file, 4096, direct); Arena arena = Arena.ofConfined()) {
                byte[] data = pattern(3 * 4096, direct ? 1 : 2);
                // aligned native (the registered-buffer case)
                MemorySegment aligned = arena.allocate(data.length, 4096).copyFrom(MemorySegment.ofArray(data));
                backend.write(10, aligned, false);
                // heap destination goes through a bounce buffer in direct mode
                byte[] back = new byte[data.length];
                backend.read(10, MemorySegment.ofArray(back));
                assertArrayEquals(data, back);
                // unaligned native source and destination
                MemorySegment unaligned = arena.allocate(data.length + 8, 4096).asSlice(8);
                unaligned.copyFrom(MemorySegment.ofArray(pattern(data.length, 3)));
                backend.write(100, unaligned, true);
                MemorySegment check = arena.allocate(data.length + 8, 4096).asSlice(8);
                backend.read(100, check);
                assertEquals(-1, check.mismatch(unaligned));
            }
            // and the bytes really are in the file at LBA * 4096
            byte[] onDisk = Arrays.copyOfRange(Files.readAllBytes(file), 10 * 4096, 13 * 4096);
            assertArrayEquals(pattern(3 * 4096, direct ? 1 : 2), onDisk);
        }
    }

    @Test
    void deallocatePunchesAHoleAndKeepsTheSize() throws Exception {
        Path file = image(4 * MIB);
        try (FileBackend backend = FileBackend.open(file, 512)) {
            byte[] data = new byte[2 * MIB];
            Arrays.fill(data, (byte) 0xAB);
            backend.write(0, MemorySegment.ofArray(data), true);
            long before = allocatedBlocks(file);
            assertTrue(before >= 2 * MIB / 512, "written range is allocated: " + before);

            backend.deallocate(0, MIB / 512);

            long after = allocatedBlocks(file);
            assertTrue(after <= before - MIB / 512, "hole punched: " + before + " -> " + after);
            assertEquals(4 * MIB, Files.size(file));
            byte[] back = new byte[2 * MIB];
            backend.read(0, MemorySegment.ofArray(back));
            for (int i = 0; i < MIB; i++) {
                if (back[i] != 0) {
                    throw new AssertionError("deallocated byte " + i + " reads " + back[i]);
                }
            }
            assertEquals((byte) 0xAB, back[MIB], "the rest is untouched");
            assertEquals((byte) 0xAB, back[2 * MIB - 1]);
        }
    }

    @Test
    void writeZeroesZeroesOnlyTheRange() throws Exception {
        try (FileBackend backend = FileBackend.open(image(MIB), 512)) {
            byte[] data = pattern(8 * 512, 7);
            backend.write(0, MemorySegment.ofArray(data), false);
            backend.writeZeroes(2, 3);
            byte[] back = new byte[8 * 512];
            backend.read(0, MemorySegment.ofArray(back));
            for (int i = 0; i < back.length; i++) {
                byte expected = (i >= 2 * 512 && i < 5 * 512) ? 0 : data[i];
                assertEquals(expected, back[i], "byte " + i);
            }
        }
    }

    @Test
    void accessBeyondTheLastBlockIsOutOfRangeAndTouchesNothing() throws Exception {
        Path file = image(MIB);
        try (FileBackend backend = FileBackend.open(file, 512)) {
            long blocks = backend.blockCount();
            MemorySegment two = MemorySegment.ofArray(new byte[1024]);
            BackendException e = assertThrows(BackendException.class, () -> backend.write(blocks - 1, two, false));
            assertEquals(BackendException.Kind.OUT_OF_RANGE, e.kind());
            assertEquals(BackendException.Kind.OUT_OF_RANGE,
                    assertThrows(BackendException.class, () -> backend.read(blocks, two)).kind());
            assertEquals(BackendException.Kind.OUT_OF_RANGE,
                    assertThrows(BackendException.class, () -> backend.deallocate(-1L, 1)).kind());
            assertEquals(BackendException.Kind.OUT_OF_RANGE,
                    assertThrows(BackendException.class, () -> backend.writeZeroes(0, blocks + 1)).kind());
            backend.read(blocks - 2, two);
        }
        assertEquals(MIB, Files.size(file));
    }

    @Test
    void fileSizeIsRoundedDownToWholeBlocksAndTinyFilesAreRefused() throws Exception {
        try (FileBackend backend = FileBackend.open(image(3 * 4096 + 100), 4096)) {
            assertEquals(3, backend.blockCount());
        }
        Path tiny = dir.resolve("tiny.img");
        Files.write(tiny, new byte[100]);
        assertThrows(IOException.class, () -> FileBackend.open(tiny, 512));
        assertThrows(IllegalArgumentException.class, () -> FileBackend.open(tiny, 1024));
        assertThrows(IOException.class, () -> FileBackend.open(dir, 512));
    }

    @Test
    void flushAfterWritesSucceeds() throws Exception {
        try (FileBackend backend = FileBackend.open(image(MIB), 512)) {
            backend.write(1, MemorySegment.ofArray(new byte[512]).fill((byte) 1), false);
            backend.flush();
            assertEquals(1, Files.readAllBytes(backend.path())[512]);
            assertFalse(backend.description().isEmpty());
            assertEquals(1, MemorySegment.ofArray(Files.readAllBytes(backend.path())).get(ValueLayout.JAVA_BYTE, 1023));
        }
    }

    @Test
    void aFileTheDaemonMayNotWriteSaysPermissionDeniedAndWho() throws Exception {
        Path file;
        if ("root".equals(System.getProperty("user.name"))) {
            // root writes any mode-0444 file; a sysfs attribute without a write method it cannot open read-write
            file = Path.of("/sys/kernel/notes");
            assumeTrue(Files.isRegularFile(file), "no /sys/kernel/notes here");
        } else {
            file = dir.resolve("read-only.img");
            Files.write(file, new byte[4096]);
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("r--r--r--"));
        }
        IOException e = assertThrows(IOException.class, () -> FileBackend.open(file, 512));
        assertEquals("cannot open " + file + " for reading and writing: Permission denied (EACCES): the daemon,"
                + " running as user " + System.getProperty("user.name") + ", needs to read and write it",
                e.getMessage());
    }

    @Test
    void aFileOnAReadOnlyFileSystemSaysSo() {
        Path file = Path.of("/mnt/ro/disk.img");
        // what the JDK throws for EROFS: the strerror text as the reason, no errno
        String text = FileBackend.openFailure(file,
                new java.nio.file.FileSystemException(file.toString(), null, "Read-only file system"));
        assertEquals("cannot open /mnt/ro/disk.img for reading and writing: Read-only file system (EROFS)", text);
    }
}
