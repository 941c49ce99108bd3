package io.nvmf4j.target.backend;

import java.lang.foreign.MemorySegment;

/**
 * The storage behind one NVMe namespace, addressed in logical blocks. Mirrors the split of Linux nvmet into
 * {@code io-cmd-file.c} and {@code io-cmd-bdev.c}: the command handler validates the command, the backend moves
 * bytes. Implementations check the range again and fail with {@link BackendException.Kind#OUT_OF_RANGE} rather than
 * touch bytes outside the namespace.
 *
 * <p>Thread safety: reads and writes of different ranges may run concurrently (positional I/O).
 */
public interface NamespaceBackend extends AutoCloseable {

    /** Logical block size in bytes: 512 or 4096. */
    int blockSize();

    /** Capacity in bytes (a multiple of {@link #blockSize()}; a trailing partial block of a file is not exposed). */
    long sizeInBytes();

    /** Capacity in logical blocks (NSZE/NCAP/NUSE of Identify Namespace). */
    default long blockCount() {
        return sizeInBytes() / blockSize();
    }

    /** Reads {@code destination.byteSize()} bytes (a multiple of the block size) starting at {@code lba}. */
    void read(long lba, MemorySegment destination) throws BackendException;

    /**
     * Writes {@code source.byteSize()} bytes starting at {@code lba}. With {@code forceUnitAccess} the data is on
     * stable storage when this returns (NVMe Base 2.0, 3.3.3.1.2 FUA; nvmet maps FUA to IOCB_DSYNC / REQ_FUA).
     */
    void write(long lba, MemorySegment source, boolean forceUnitAccess) throws BackendException;

    /** Makes all completed writes durable (NVMe Flush; nvmet: vfs_fsync() / an empty REQ_PREFLUSH bio). */
    void flush() throws BackendException;

    /** Sets {@code blocks} blocks from {@code lba} to zero (NVMe Write Zeroes). */
    void writeZeroes(long lba, long blocks) throws BackendException;

    /** Releases {@code blocks} blocks from {@code lba}; they read back as zeroes (Dataset Management, AD bit). */
    void deallocate(long lba, long blocks) throws BackendException;

    /** Whether a volatile write cache sits in front of stable storage (Identify Controller VWC). */
    boolean volatileWriteCache();

    /** Human-readable identity for logs, e.g. {@code file /srv/disk.img (O_DIRECT)}. */
    String description();

    @Override
    void close();

    /** Fails unless {@code [lba, lba+blocks)} lies within the namespace and {@code blocks >= 0}. */
    default void checkRange(long lba, long blocks) throws BackendException {
        long count = blockCount();
        if (lba < 0 || blocks < 0 || lba > count || blocks > count - lba) {
            throw new BackendException(BackendException.Kind.OUT_OF_RANGE,
                    "LBA range " + Long.toUnsignedString(lba) + "+" + blocks + " outside namespace of " + count
                            + " blocks");
        }
    }

    /** Fails unless {@code bytes} is a whole number of blocks; returns the block count. */
    default long blocksOf(long bytes) throws BackendException {
        if (bytes % blockSize() != 0) {
            throw new BackendException(BackendException.Kind.IO_ERROR,
                    "transfer of " + bytes + " bytes is not a multiple of the block size " + blockSize());
        }
        return bytes / blockSize();
    }

    /** Validates a configured logical block size. */
    static int requireBlockSize(int blockSize) {
        if (blockSize != 512 && blockSize != 4096) {
            throw new IllegalArgumentException("logical block size must be 512 or 4096, not " + blockSize);
        }
        return blockSize;
    }
}
