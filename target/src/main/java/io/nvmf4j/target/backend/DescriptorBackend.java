package io.nvmf4j.target.backend;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * What the two backends on a raw descriptor share (Linux nvmet's {@code io-cmd-file.c} and {@code io-cmd-bdev.c}
 * both keep the opened file and its size in {@code struct nvmet_ns}): the path, the descriptor, the block size and
 * usable size, a volatile write cache (the page cache or the device's), Flush as {@code fdatasync(2)}
 * (nvmet_file_flush() is vfs_fsync(); a bdev flush reaches the device cache the same way), and an idempotent close.
 */
abstract sealed class DescriptorBackend implements AsyncBackend permits FileBackend, BlockDeviceBackend {

    private static final System.Logger LOG = System.getLogger(DescriptorBackend.class.getName());

    final Path path;
    final int fd;
    final int blockSize;
    final long size;
    private final BackendWorkers workers;
    private volatile boolean closed;

    DescriptorBackend(Path path, int fd, int blockSize, long size) {
        this.path = path;
        this.fd = fd;
        this.blockSize = blockSize;
        this.size = size;
        Path name = path.getFileName();
        this.workers = new BackendWorkers(name == null ? path.toString() : name.toString(),
                BackendWorkers.DEFAULT_LIMIT, BackendWorkers.DEFAULT_THREADS);
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final int descriptor() {
        return fd;
    }

    @Override
    public final BackendWorkers workers() {
        return workers;
    }

    /**
     * The synchronous operations, for the workers: the same code as the synchronous interface, so both modes and
     * the fallbacks of the ring share every check and every fallback (buffered I/O after EINVAL, zeroes written
     * where fallocate is not supported).
     */
    @Override
    public final int runBlocking(BackendOp op, long offset, long length, MemorySegment buffer) {
        try {
            switch (op) {
                case READ -> read(offset / blockSize, buffer);
                case WRITE -> write(offset / blockSize, buffer, false);
                case WRITE_FUA -> write(offset / blockSize, buffer, true);
                case FLUSH -> flush();
                case WRITE_ZEROES -> writeZeroes(offset / blockSize, length / blockSize);
                case DEALLOCATE -> deallocate(offset / blockSize, length / blockSize);
            }
        } catch (BackendException e) {
            return e.toResult();
        }
        return op.movesData() ? (int) length : 0;
    }

    @Override
    public final int blockSize() {
        return blockSize;
    }

    @Override
    public final long sizeInBytes() {
        return size;
    }

    @Override
    public final boolean volatileWriteCache() {
        return true;
    }

    @Override
    public final void flush() throws BackendException {
        // fdatasync(2) flushes the file's dirty pages whichever descriptor wrote them (a FileChannel's too)
        try {
            LinuxCalls.fdatasync(fd);
        } catch (LinuxCalls.ErrnoException e) {
            throw DescriptorIo.failure("flush of " + path, e);
        }
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        workers.close();
        try {
            LinuxCalls.close(fd);
        } catch (LinuxCalls.ErrnoException e) {
            LOG.log(Level.WARNING, "closing {0}: {1}", path, e.getMessage());
        }
        closeMore();
    }

    /** What a backend holds beside the descriptor, closed after it (once). */
    void closeMore() {
    }
}
