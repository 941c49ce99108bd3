package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The signatures blkid and wipefs find at the start of a disk, in images built byte by byte (and by mkfs). */
class FilesystemSignaturesTest {

    private static byte[] disk() {
        return new byte[FilesystemSignatures.PROBE_BYTES];
    }

    private static void put(byte[] disk, int offset, String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(b, 0, disk, offset, b.length);
    }

    private static void le16(byte[] disk, int offset, int v) {
        disk[offset] = (byte) v;
        disk[offset + 1] = (byte) (v >>> 8);
    }

    private static void le32(byte[] disk, int offset, long v) {
        for (int i = 0; i < 4; i++) {
            disk[offset + i] = (byte) (v >>> (8 * i));
        }
    }

    private static Optional<String> find(byte[] disk) {
        return FilesystemSignatures.find(disk, 512);
    }

    @Test
    void anEmptyDiskHoldsNothing() {
        assertEquals(Optional.empty(), find(disk()));
        assertEquals(Optional.empty(), find(new byte[100]), "a namespace smaller than the probe");
        byte[] random = disk();
        new java.util.Random(3).nextBytes(random);
        random[1080] = 0; // not the ext magic by chance
        random[510] = 0;
        assertEquals(Optional.empty(), find(random));
    }

    @Test
    void extTwoThreeAndFourAreToldApartByTheirFeatures() {
        byte[] ext = disk();
        le16(ext, 1024 + 0x38, 0xEF53);
        assertEquals(Optional.of("an ext2 file system"), find(ext));
        le32(ext, 1024 + 0x5C, 0x0004); // has_journal
        assertEquals(Optional.of("an ext3 file system"), find(ext));
        le32(ext, 1024 + 0x60, 0x0002 | 0x0040 | 0x0200); // filetype, extents, flex_bg
        put(ext, 1024 + 0x78, "data");
        assertEquals(Optional.of("an ext4 file system (label \"data\")"), find(ext));
    }

    @Test
    void theOtherFileSystemsVolumesAndTablesWipefsLists() {
        byte[] xfs = disk();
        put(xfs, 0, "XFSB");
        assertEquals(Optional.of("an xfs file system"), find(xfs));
        byte[] btrfs = disk();
        put(btrfs, 0x10040, "_BHRfS_M");
        assertEquals(Optional.of("a btrfs file system"), find(btrfs));
        byte[] f2fs = disk();
        le32(f2fs, 1024, 0xF2F52010L);
        assertEquals(Optional.of("an f2fs file system"), find(f2fs));
        byte[] luks = disk();
        put(luks, 0, "LUKS\u00ba\u00be");
        assertEquals(Optional.of("a LUKS encrypted volume"), find(luks));
        byte[] lvm = disk();
        put(lvm, 512, "LABELONE");
        put(lvm, 512 + 24, "LVM2 001");
        assertEquals(Optional.of("an LVM2 physical volume"), find(lvm));
        byte[] swap = disk();
        put(swap, 4096 - 10, "SWAPSPACE2");
        assertEquals(Optional.of("a swap area"), find(swap));
        byte[] vfat = disk();
        put(vfat, 82, "FAT32   ");
        le16(vfat, 510, 0xAA55);
        assertEquals(Optional.of("a vfat file system"), find(vfat));
        byte[] gpt = disk();
        le16(gpt, 510, 0xAA55);
        gpt[446 + 4] = (byte) 0xEE; // protective MBR
        put(gpt, 512, "EFI PART");
        assertEquals(Optional.of("a gpt partition table"), find(gpt));
        byte[] dos = disk();
        le16(dos, 510, 0xAA55);
        dos[446 + 4] = (byte) 0x83;
        assertEquals(Optional.of("a dos partition table"), find(dos));
        byte[] ntfs = disk();
        put(ntfs, 3, "NTFS    ");
        assertEquals(Optional.of("an ntfs file system"), find(ntfs));
    }

    /** The offsets above against what the real tools write, where they are installed. */
    @Test
    void whatMkfsExt4AndMkswapWriteIsFound(@TempDir Path dir) throws Exception {
        Optional<Path> mkfs = tool("mkfs.ext4");
        Optional<Path> mkswap = tool("mkswap");
        assumeTrue(mkfs.isPresent() && mkswap.isPresent(), "mkfs.ext4 and mkswap are not installed");
        Path img = dir.resolve("ext4.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(16L << 20);
        }
        run(mkfs.get().toString(), "-q", "-F", "-L", "photos", img.toString());
        assertEquals(Optional.of("an ext4 file system (label \"photos\")"), find(head(img)));
        Path swap = dir.resolve("swap.img");
        try (RandomAccessFile f = new RandomAccessFile(swap.toFile(), "rw")) {
            f.setLength(1L << 20);
        }
        run(mkswap.get().toString(), swap.toString());
        assertEquals(Optional.of("a swap area"), find(head(swap)));
    }

    private static byte[] head(Path img) throws Exception {
        byte[] all = Files.readAllBytes(img);
        return Arrays.copyOf(all, Math.min(all.length, FilesystemSignatures.PROBE_BYTES));
    }

    private static Optional<Path> tool(String name) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Optional.of(Path.of(dir, name));
            }
        }
        return Optional.empty();
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish in 60 s");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + out);
    }
}
