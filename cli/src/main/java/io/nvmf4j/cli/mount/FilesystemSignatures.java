package io.nvmf4j.cli.mount;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What already lives at the start of a disk, found by the signatures blkid and wipefs look for: file system
 * superblocks, swap, LUKS and LVM headers, partition tables. {@code mount --mkfs} asks before it formats over one,
 * as {@code mkfs.ext4} does ("contains a ext4 file system ... Proceed anyway?"), since formatting destroys it.
 *
 * <p>Only the first {@link #PROBE_BYTES} are looked at: every signature here sits within them (the farthest,
 * btrfs's and reiserfs's, just past 64 KiB).
 */
final class FilesystemSignatures {

    /** The bytes from the start of the disk every signature below fits in. */
    static final int PROBE_BYTES = 68 * 1024;

    /** ext2/3/4 superblock at 1024 (s_magic at +0x38, little-endian). */
    private static final int EXT_SUPER = 1024;
    private static final int EXT_MAGIC = 0xEF53;
    /** s_feature_compat HAS_JOURNAL: ext3 or later. */
    private static final int EXT_COMPAT_JOURNAL = 0x0004;
    /**
     * s_feature_incompat bits ext3 does not know (extents, 64bit, mmp, flex_bg, ...): blkid calls the file system
     * ext4 when any is set.
     */
    private static final int EXT4_INCOMPAT = 0x0040 | 0x0080 | 0x0100 | 0x0200 | 0x0400 | 0x1000 | 0x2000
            | 0x8000 | 0x10000 | 0x20000;
    /** s_feature_ro_compat bits beyond ext3's (huge_file, gdt_csum, dir_nlink, extra_isize, metadata_csum...). */
    private static final int EXT4_RO_COMPAT = 0x0008 | 0x0010 | 0x0020 | 0x0040 | 0x0400;

    private FilesystemSignatures() {
    }

    /**
     * What {@code head}, the first bytes of a disk of {@code blockSize}-byte blocks, holds, in words for a message
     * ("an ext4 file system (label \"data\")", "a dos partition table"), or empty when no known signature is there.
     */
    static Optional<String> find(byte[] head, int blockSize) {
        ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
        if (u16(b, EXT_SUPER + 0x38) == EXT_MAGIC) {
            return Optional.of("an " + extVariant(b) + " file system" + label(head, EXT_SUPER + 0x78, 16));
        }
        if (ascii(head, 0, "XFSB")) {
            return Optional.of("an xfs file system" + label(head, 108, 12));
        }
        if (ascii(head, 0x10040, "_BHRfS_M")) {
            return Optional.of("a btrfs file system" + label(head, 0x10000 + 0x12B, 256));
        }
        if (u32(b, 1024) == 0xF2F52010L) {
            return Optional.of("an f2fs file system");
        }
        if (ascii(head, 0, "LUKS\u00ba\u00be") || ascii(head, 0, "SKUL\u00ba\u00be")) {
            return Optional.of("a LUKS encrypted volume");
        }
        for (int sector = 0; sector < 4; sector++) {
            if (ascii(head, sector * 512, "LABELONE") && ascii(head, sector * 512 + 24, "LVM2 ")) {
                return Optional.of("an LVM2 physical volume");
            }
        }
        if (ascii(head, 0x8000, "JFS1")) {
            return Optional.of("a jfs file system");
        }
        if (ascii(head, 0x10000 + 52, "ReIsEr2Fs") || ascii(head, 0x10000 + 52, "ReIsEr3Fs")
                || ascii(head, 0x10000 + 52, "ReIsErFs")) {
            return Optional.of("a reiserfs file system");
        }
        if (ascii(head, 0, "hsqs")) {
            return Optional.of("a squashfs file system");
        }
        if (ascii(head, 0x8001, "CD001")) {
            return Optional.of("an iso9660 file system");
        }
        if (ascii(head, 3, "NTFS    ")) {
            return Optional.of("an ntfs file system");
        }
        if (ascii(head, 3, "EXFAT   ")) {
            return Optional.of("an exfat file system");
        }
        // swap: the signature ends a page; the page size of the machine that made it is not known here
        for (int page : new int[] {4096, 8192, 16384, 65536}) {
            if (ascii(head, page - 10, "SWAPSPACE2") || ascii(head, page - 10, "SWAP-SPACE")) {
                return Optional.of("a swap area");
            }
        }
        boolean bootSignature = u16(b, 510) == 0xAA55;
        if (bootSignature && (ascii(head, 54, "FAT1") || ascii(head, 82, "FAT32") || ascii(head, 54, "MSDOS"))) {
            return Optional.of("a vfat file system");
        }
        if (ascii(head, blockSize, "EFI PART") || ascii(head, 512, "EFI PART") || ascii(head, 4096, "EFI PART")) {
            return Optional.of("a gpt partition table");
        }
        if (bootSignature && hasPartitionEntry(head)) {
            return Optional.of("a dos partition table");
        }
        return Optional.empty();
    }

    /** ext2, ext3 or ext4, the way blkid tells them apart: by the feature flags in the superblock. */
    private static String extVariant(ByteBuffer b) {
        int compat = (int) u32(b, EXT_SUPER + 0x5C);
        int incompat = (int) u32(b, EXT_SUPER + 0x60);
        int roCompat = (int) u32(b, EXT_SUPER + 0x64);
        if ((incompat & EXT4_INCOMPAT) != 0 || (roCompat & EXT4_RO_COMPAT) != 0) {
            return "ext4";
        }
        return (compat & EXT_COMPAT_JOURNAL) != 0 ? "ext3" : "ext2";
    }

    /** An MBR partition entry with a type: an all-zero table with 55AA is a boot sector, not a partition table. */
    private static boolean hasPartitionEntry(byte[] head) {
        for (int entry = 0; entry < 4; entry++) {
            if (head.length > 446 + entry * 16 + 4 && head[446 + entry * 16 + 4] != 0) {
                return true;
            }
        }
        return false;
    }

    /** {@code (label "x")} from a NUL-padded field, or nothing when the field is empty. */
    private static String label(byte[] head, int offset, int length) {
        if (head.length < offset + length) {
            return "";
        }
        int end = offset;
        while (end < offset + length && head[end] != 0) {
            end++;
        }
        String text = new String(head, offset, end - offset, StandardCharsets.UTF_8).strip();
        return text.isEmpty() ? "" : " (label \"" + text + "\")";
    }

    private static boolean ascii(byte[] head, int offset, String text) {
        byte[] expected = text.getBytes(StandardCharsets.ISO_8859_1);
        if (offset < 0 || head.length < offset + expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if (head[offset + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static int u16(ByteBuffer b, int offset) {
        return b.limit() < offset + 2 ? -1 : Short.toUnsignedInt(b.getShort(offset));
    }

    private static long u32(ByteBuffer b, int offset) {
        return b.limit() < offset + 4 ? -1 : Integer.toUnsignedLong(b.getInt(offset));
    }
}
