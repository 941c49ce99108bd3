package io.nvmf4j.target.backend;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A namespace backed by a regular file, like Linux nvmet's {@code io-cmd-file.c}.
 *
 * <p>Two modes, chosen at open and logged: <b>direct</b> ({@code open(2)} with {@code O_DIRECT} through FFM, then
 * pread/pwrite into aligned native memory; nvmet's default {@code buffered_io=0}) and <b>buffered</b> (a
 * {@link FileChannel} through the page cache) when the filesystem refuses {@code O_DIRECT} with EINVAL (tmpfs, for
 * instance) or when the caller asks for it. A direct transfer the kernel still rejects with EINVAL (an offset not
 * aligned to the device's sector) is retried through the channel.
 *
 * <p>Write Zeroes is {@code fallocate(FALLOC_FL_ZERO_RANGE|FALLOC_FL_KEEP_SIZE)} and deallocate
 * {@code fallocate(FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE)}, as in nvmet_file_execute_write_zeroes() and
 * nvmet_file_execute_discard(); where the filesystem does not support them (EOPNOTSUPP) zeroes are written, so a
 * deallocated range always reads back as zeroes (what we advertise in DLFEAT).
 */
public final class FileBackend extends DescriptorBackend {

    private static final System.Logger LOG = System.getLogger(FileBackend.class.getName());
    private static final int ZERO_CHUNK = 1 << 20;

    private final FileChannel channel;
    private final boolean direct;
    private volatile boolean directRejected;

    private FileBackend(Path path, int blockSize, long size, FileChannel channel, int fd, boolean direct) {
        super(path, fd, blockSize, size);
        this.channel = channel;
        this.direct = direct;
    }

    /** Opens {@code path} trying {@code O_DIRECT} first. */
    public static FileBackend open(Path path, int blockSize) throws IOException {
        return open(path, blockSize, true);
    }

    /**
     * Opens an existing regular file. Its size, rounded down to a whole number of blocks, is the namespace size.
     *
     * @param tryDirect whether to try {@code O_DIRECT} (nvmet's {@code buffered_io} attribute, inverted)
     */
    public static FileBackend open(Path path, int blockSize, boolean tryDirect) throws IOException {
        NamespaceBackend.requireBlockSize(blockSize);
        if (!Files.isRegularFile(path)) {
            throw new IOException("not a regular file: " + path);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (FileSystemException e) {
            throw new IOException(openFailure(path, e), e);
        }
        try {
            long bytes = channel.size() / blockSize * blockSize;
            if (bytes == 0) {
                throw new IOException(path + " is smaller than one block of " + blockSize + " bytes");
            }
            int fd = -1;
            boolean direct = false;
            String abs = path.toAbsolutePath().toString();
            if (tryDirect) {
                try {
                    fd = LinuxCalls.open(abs, LinuxCalls.O_RDWR | LinuxCalls.O_DIRECT);
                    direct = true;
                } catch (LinuxCalls.ErrnoException e) {
                    if (e.errno() != LinuxCalls.EINVAL) {
                        throw new IOException("cannot open " + path + " with O_DIRECT: " + e.getMessage(), e);
                    }
                    LOG.log(Level.INFO, "{0}: filesystem refuses O_DIRECT (EINVAL), using buffered I/O", path);
                }
            }
            if (fd < 0) {
                try {
                    fd = LinuxCalls.open(abs, LinuxCalls.O_RDWR);
                } catch (LinuxCalls.ErrnoException e) {
                    throw new IOException("cannot open " + path + ": " + e.getMessage(), e);
                }
            }
            FileBackend backend = new FileBackend(path, blockSize, bytes, channel, fd, direct);
            LOG.log(Level.INFO, "namespace backend {0}: {1} bytes, {2}-byte blocks",
                    backend.description(), bytes, blockSize);
            return backend;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Why a file could not be opened read-write, with the errno's name as the kernel would say it: Java's
     * AccessDeniedException carries only the path, which left an operator with a read-only --file and no reason.
     */
    static String openFailure(Path path, FileSystemException e) {
        String reason;
        if (e instanceof AccessDeniedException) {
            // the JDK raises it for EACCES only; a namespace is written, so read access is not enough
            reason = "Permission denied (EACCES): the daemon, running as user " + System.getProperty("user.name")
                    + ", needs to read and write it";
        } else if (e instanceof NoSuchFileException) {
            reason = "No such file or directory (ENOENT)";
        } else {
            String text = e.getReason() == null ? e.getClass().getSimpleName() : e.getReason();
            String errno = switch (text) {
                case "Read-only file system" -> " (EROFS)";
                case "Operation not permitted" -> " (EPERM)";
                case "Text file busy" -> " (ETXTBSY)";
                case "Is a directory" -> " (EISDIR)";
                default -> "";
            };
            reason = text + errno;
        }
        return "cannot open " + path + " for reading and writing: " + reason;
    }

    /** Whether I/O goes around the page cache. */
    public boolean isDirect() {
        return direct;
    }

    public Path path() {
        return path;
    }

    @Override
    public boolean directIo() {
        return direct && !directRejected;
    }

    /** nvmet_file_execute_write_zeroes() / nvmet_file_execute_discard(): fallocate with KEEP_SIZE. */
    @Override
    public int fallocateMode(BackendOp op) {
        return switch (op) {
            case WRITE_ZEROES -> LinuxCalls.FALLOC_FL_ZERO_RANGE | LinuxCalls.FALLOC_FL_KEEP_SIZE;
            case DEALLOCATE -> LinuxCalls.FALLOC_FL_PUNCH_HOLE | LinuxCalls.FALLOC_FL_KEEP_SIZE;
            default -> -1;
        };
    }

    @Override
    public String description() {
        return "file " + path + (direct ? " (O_DIRECT)" : " (buffered)");
    }

    @Override
    public void read(long lba, MemorySegment destination) throws BackendException {
        checkRange(lba, blocksOf(destination.byteSize()));
        long offset = lba * blockSize;
        if (direct && !directRejected) {
            try {
                DescriptorIo.readFully(fd, destination, offset, true);
                return;
            } catch (LinuxCalls.ErrnoException e) {
                if (e.errno() != LinuxCalls.EINVAL) {
                    throw DescriptorIo.failure("read of " + path + " at " + offset, e);
                }
                rejectDirect(e);
            }
        }
        if (!direct) {
            // buffered descriptor: pread(2) straight into the segment (a FileChannel wants a ByteBuffer per call)
            try {
                DescriptorIo.readFully(fd, destination, offset, false);
                return;
            } catch (LinuxCalls.ErrnoException e) {
                throw DescriptorIo.failure("read of " + path + " at " + offset, e);
            }
        }
        ByteBuffer buffer = destination.asByteBuffer();
        try {
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, offset + buffer.position());
                if (n < 0) {
                    throw new BackendException(BackendException.Kind.IO_ERROR,
                            path + " ended at byte " + (offset + buffer.position()));
                }
            }
        } catch (IOException e) {
            throw new BackendException(BackendException.Kind.IO_ERROR, LinuxCalls.EIO,
                    "read of " + path + " at " + offset + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void write(long lba, MemorySegment source, boolean forceUnitAccess) throws BackendException {
        checkRange(lba, blocksOf(source.byteSize()));
        long offset = lba * blockSize;
        boolean done = false;
        if (direct && !directRejected) {
            try {
                DescriptorIo.writeFully(fd, source, offset, true);
                done = true;
            } catch (LinuxCalls.ErrnoException e) {
                if (e.errno() != LinuxCalls.EINVAL) {
                    throw DescriptorIo.failure("write of " + path + " at " + offset, e);
                }
                rejectDirect(e);
            }
        }
        if (!done && !direct) {
            try {
                DescriptorIo.writeFully(fd, source, offset, false);
                done = true;
            } catch (LinuxCalls.ErrnoException e) {
                throw DescriptorIo.failure("write of " + path + " at " + offset, e);
            }
        }
        if (!done) {
            writeThroughChannel(offset, source.asByteBuffer());
        }
        if (forceUnitAccess) {
            // nvmet sets IOCB_DSYNC for FUA: the data (not every metadata update) must be stable on return.
            flush();
        }
    }

    private void writeThroughChannel(long offset, ByteBuffer buffer) throws BackendException {
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer, offset + buffer.position());
            }
        } catch (IOException e) {
            throw new BackendException(BackendException.Kind.IO_ERROR, LinuxCalls.EIO,
                    "write of " + path + " at " + offset + ": " + e.getMessage(), e);
        }
    }

    private void rejectDirect(LinuxCalls.ErrnoException e) {
        if (!directRejected) {
            directRejected = true;
            LOG.log(Level.WARNING, "{0}: O_DIRECT transfer rejected ({1}); continuing with buffered I/O",
                    path, e.getMessage());
        }
    }

    @Override
    public void writeZeroes(long lba, long blocks) throws BackendException {
        fallocateOrZero(LinuxCalls.FALLOC_FL_ZERO_RANGE, "write zeroes", lba, blocks);
    }

    @Override
    public void deallocate(long lba, long blocks) throws BackendException {
        fallocateOrZero(LinuxCalls.FALLOC_FL_PUNCH_HOLE, "deallocate", lba, blocks);
    }

    /**
     * {@code fallocate(mode|FALLOC_FL_KEEP_SIZE)} over the blocks; where the filesystem does not support the mode
     * (EOPNOTSUPP), zeroes written, as the range must read back as zeroes either way (DLFEAT).
     */
    private void fallocateOrZero(int mode, String what, long lba, long blocks) throws BackendException {
        checkRange(lba, blocks);
        if (blocks == 0) {
            return;
        }
        long offset = lba * blockSize;
        long length = blocks * blockSize;
        try {
            LinuxCalls.fallocate(fd, mode | LinuxCalls.FALLOC_FL_KEEP_SIZE, offset, length);
        } catch (LinuxCalls.ErrnoException e) {
            if (e.errno() != LinuxCalls.EOPNOTSUPP) {
                throw DescriptorIo.failure(what + " on " + path + " at " + offset, e);
            }
            writeZeroBytes(offset, length);
        }
    }

    private void writeZeroBytes(long offset, long length) throws BackendException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment zeros = arena.allocate(Math.min(length, ZERO_CHUNK), DescriptorIo.ALIGNMENT);
            for (long done = 0; done < length; done += zeros.byteSize()) {
                long n = Math.min(zeros.byteSize(), length - done);
                MemorySegment chunk = zeros.asSlice(0, n);
                if (direct && !directRejected) {
                    try {
                        DescriptorIo.writeFully(fd, chunk, offset + done, true);
                        continue;
                    } catch (LinuxCalls.ErrnoException e) {
                        if (e.errno() != LinuxCalls.EINVAL) {
                            throw DescriptorIo.failure("zeroing " + path + " at " + (offset + done), e);
                        }
                        rejectDirect(e);
                    }
                }
                writeThroughChannel(offset + done, chunk.asByteBuffer());
            }
        }
    }

    @Override
    void closeMore() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing {0}: {1}", path, e.getMessage());
        }
    }
}
