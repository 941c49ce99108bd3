package io.nvmf4j.target.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BlockDeviceBackendTest {

    @TempDir
    Path dir;

    private Path image(long size) throws IOException {
        Path file = dir.resolve("bdev.img");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
        }
        return file;
    }

    @Test
    void blkGetSize64OnARegularFileIsRefusedWithEnotty() throws Exception {
        Path file = image(1 << 20);
        int fd = LinuxCalls.open(file.toString(), LinuxCalls.O_RDWR);
        try {
            IOException e = assertThrows(IOException.class, () -> BlockDeviceBackend.deviceSize(fd, file));
            assertTrue(e.getMessage().contains("BLKGETSIZE64") && e.getMessage().contains("not a block device"),
                    e.getMessage());
            LinuxCalls.ErrnoException cause = (LinuxCalls.ErrnoException) e.getCause();
            assertEquals(LinuxCalls.ENOTTY, cause.errno());
        } finally {
            LinuxCalls.close(fd);
        }
        assertThrows(IOException.class, () -> BlockDeviceBackend.open(file, 512));
    }

    @Test
    void loopDeviceSizeReadWriteDiscardAndZeroout() throws Exception {
        Path file = image(8 << 20);
        String loop = attachLoop(file);
        Assumptions.assumeTrue(loop != null, "no loop device could be attached (losetup unavailable or not root)");
        try (BlockDeviceBackend bdev = BlockDeviceBackend.open(Path.of(loop), 512)) {
            assertEquals(8 << 20, bdev.sizeInBytes());
            byte[] data = new byte[4096];
            Arrays.fill(data, (byte) 0x5A);
            bdev.write(8, MemorySegment.ofArray(data), true);
            byte[] back = new byte[4096];
            bdev.read(8, MemorySegment.ofArray(back));
            assertArrayEquals(data, back);
            bdev.deallocate(8, 8);
            bdev.read(8, MemorySegment.ofArray(back));
            assertArrayEquals(new byte[4096], back);
            bdev.write(8, MemorySegment.ofArray(data), false);
            bdev.writeZeroes(9, 1);
            bdev.read(8, MemorySegment.ofArray(back));
            assertEquals(0x5A, back[0]);
            assertEquals(0, back[512]);
            assertEquals(0x5A, back[1024]);
            assertEquals(BackendException.Kind.OUT_OF_RANGE, assertThrows(BackendException.class,
                    () -> bdev.read(bdev.blockCount(), MemorySegment.ofArray(new byte[512]))).kind());
        } finally {
            run("losetup", "-d", loop);
        }
    }

    private static String attachLoop(Path file) {
        try {
            String out = run("losetup", "-f", "--show", file.toString());
            return out != null && out.startsWith("/dev/loop") ? out : null;
        } catch (Exception e) {
            return null;
        }
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
            return null;
        }
        return out;
    }
}
