package io.nvmf4j.target.backend;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A namespace backed by a block device, like Linux nvmet's {@code io-cmd-bdev.c}. Opened with {@code O_DIRECT}
 * (block devices always accept it for sector-aligned transfers); size from {@code ioctl(BLKGETSIZE64)}, the device's
 * logical sector size from {@code BLKSSZGET} (the namespace block size may not be smaller, as in
 * nvmet_bdev_ns_enable() where blksize_shift comes from the bdev); deallocate is {@code BLKDISCARD}, Write Zeroes
 * is {@code BLKZEROOUT} (nvmet: blkdev_issue_discard() / __blkdev_issue_zeroout()).
 */
public final class BlockDeviceBackend extends DescriptorBackend {

    private static final System.Logger LOG = System.getLogger(BlockDeviceBackend.class.getName());

    private BlockDeviceBackend(Path path, int fd, int blockSize, long size) {
        super(path, fd, blockSize, size);
    }

    public static BlockDeviceBackend open(Path path, int blockSize) throws IOException {
        NamespaceBackend.requireBlockSize(blockSize);
        int fd;
        try {
            fd = LinuxCalls.open(path.toAbsolutePath().toString(), LinuxCalls.O_RDWR | LinuxCalls.O_DIRECT);
        } catch (LinuxCalls.ErrnoException e) {
            throw new IOException("cannot open block device " + path + ": " + e.getMessage(), e);
        }
        try {
            long bytes = deviceSize(fd, path);
            int sector = logicalSectorSize(fd, path);
            if (blockSize < sector) {
                throw new IOException(path + " has " + sector + "-byte logical sectors; a " + blockSize
                        + "-byte namespace block size is not possible");
            }
            long usable = bytes / blockSize * blockSize;
            if (usable == 0) {
                throw new IOException(path + " (" + bytes + " bytes) is smaller than one block");
            }
            BlockDeviceBackend backend = new BlockDeviceBackend(path, fd, blockSize, usable);
            LOG.log(Level.INFO, "namespace backend {0}: {1} bytes, {2}-byte blocks (device sector {3})",
                    backend.description(), usable, blockSize, sector);
            return backend;
        } catch (IOException | RuntimeException e) {
            try {
                LinuxCalls.close(fd);
            } catch (LinuxCalls.ErrnoException ignored) {
                // already failing; the first error is the one to report
            }
            throw e;
        }
    }

    /**
     * Size of the device behind {@code fd} in bytes via {@code ioctl(BLKGETSIZE64)}. On a descriptor that is not
     * a block device the kernel answers ENOTTY, reported as an IOException naming the path.
     */
    static long deviceSize(int fd, Path path) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            LinuxCalls.ioctl(fd, LinuxCalls.BLKGETSIZE64, out);
            return out.get(JAVA_LONG, 0);
        } catch (LinuxCalls.ErrnoException e) {
            throw new IOException("BLKGETSIZE64 on " + path + ": " + e.getMessage()
                    + (e.errno() == LinuxCalls.ENOTTY ? " (not a block device)" : ""), e);
        }
    }

    static int logicalSectorSize(int fd, Path path) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            LinuxCalls.ioctl(fd, LinuxCalls.BLKSSZGET, out);
            return out.get(JAVA_INT, 0);
        } catch (LinuxCalls.ErrnoException e) {
            throw new IOException("BLKSSZGET on " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean directIo() {
        return true;
    }

    /** BLKZEROOUT and BLKDISCARD are ioctls the ring has no opcode for: a worker runs them. */
    @Override
    public int fallocateMode(BackendOp op) {
        return -1;
    }

    @Override
    public String description() {
        return "block device " + path + " (O_DIRECT)";
    }

    @Override
    public void read(long lba, MemorySegment destination) throws BackendException {
        checkRange(lba, blocksOf(destination.byteSize()));
        try {
            DescriptorIo.readFully(fd, destination, lba * blockSize, true);
        } catch (LinuxCalls.ErrnoException e) {
            throw DescriptorIo.failure("read of " + path + " at LBA " + lba, e);
        }
    }

    @Override
    public void write(long lba, MemorySegment source, boolean forceUnitAccess) throws BackendException {
        checkRange(lba, blocksOf(source.byteSize()));
        try {
            DescriptorIo.writeFully(fd, source, lba * blockSize, true);
        } catch (LinuxCalls.ErrnoException e) {
            throw DescriptorIo.failure("write of " + path + " at LBA " + lba, e);
        }
        if (forceUnitAccess) {
            flush();
        }
    }

    @Override
    public void writeZeroes(long lba, long blocks) throws BackendException {
        rangeIoctl(LinuxCalls.BLKZEROOUT, "BLKZEROOUT", lba, blocks);
    }

    @Override
    public void deallocate(long lba, long blocks) throws BackendException {
        try {
            rangeIoctl(LinuxCalls.BLKDISCARD, "BLKDISCARD", lba, blocks);
        } catch (BackendException e) {
            if (e.kind() != BackendException.Kind.NOT_SUPPORTED) {
                throw e;
            }
            // A device without discard (EOPNOTSUPP): deallocate is advisory, but we promise zeroes (DLFEAT).
            rangeIoctl(LinuxCalls.BLKZEROOUT, "BLKZEROOUT", lba, blocks);
        }
    }

    private void rangeIoctl(long request, String name, long lba, long blocks) throws BackendException {
        checkRange(lba, blocks);
        if (blocks == 0) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment range = arena.allocate(JAVA_LONG, 2);
            range.setAtIndex(JAVA_LONG, 0, lba * blockSize);
            range.setAtIndex(JAVA_LONG, 1, blocks * blockSize);
            LinuxCalls.ioctl(fd, request, range);
        } catch (LinuxCalls.ErrnoException e) {
            throw DescriptorIo.failure(name + " on " + path + " at LBA " + lba, e);
        }
    }
}
