package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.host.FailureReport;
import io.nvmf4j.cli.mount.fuse.FileInfoBits;
import io.nvmf4j.cli.mount.fuse.FileSystem;
import io.nvmf4j.cli.mount.fuse.FuseRequest;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_conn_info;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_file_info;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h;
import io.nvmf4j.cli.mount.fuse.ffi.stat;
import io.nvmf4j.cli.mount.fuse.ffi.timespec;
import io.nvmf4j.uring.Errno;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * A flat directory (inode 1) holding one regular file per namespace (inodes 2, 3, ...): the FUSE operations
 * mapped onto NVMe commands. read/write become Read/Write, fsync becomes Flush, fallocate
 * PUNCH_HOLE|KEEP_SIZE becomes Dataset Management Deallocate and ZERO_RANGE becomes Write Zeroes. Every file is
 * opened with {@code direct_io}, so the kernel keeps no page cache of remote data (what another host wrote is
 * what the next read returns) and each read(2)/write(2) reaches this code at its own offset and length.
 */
final class NamespaceFileSystem implements FileSystem {

    private static final Logger LOG = System.getLogger(NamespaceFileSystem.class.getName());

    static final long ROOT = 1;
    /** stat.h S_IFDIR / S_IFREG. */
    private static final int S_IFDIR = 0040000;
    private static final int S_IFREG = 0100000;
    /** fallocate(2) FALLOC_FL_* (linux/falloc.h). */
    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    static final int FALLOC_FL_ZERO_RANGE = 0x10;
    /** Seconds the kernel may cache attributes and names: sizes never change while mounted. */
    private static final double ATTR_TIMEOUT = 60.0;

    private final List<NamespaceFile> files;
    private final ScratchPool pool;
    private final int maxBackground;
    private final long mountedAt = System.currentTimeMillis() / 1000;
    final AtomicLong bytesRead = new AtomicLong();
    final AtomicLong bytesWritten = new AtomicLong();
    final AtomicLong failures = new AtomicLong();

    /** {@code queueDepth}: the connection's total outstanding commands, offered to the kernel as max_background. */
    NamespaceFileSystem(List<NamespaceFile> files, ScratchPool pool, int queueDepth) {
        this.files = List.copyOf(files);
        this.pool = pool;
        this.maxBackground = Math.max(12, Math.min(queueDepth, 0xFFFF));
    }

    List<NamespaceFile> files() {
        return files;
    }

    ScratchPool pool() {
        return pool;
    }

    private NamespaceFile file(long ino) {
        long i = ino - 2;
        return i >= 0 && i < files.size() ? files.get((int) i) : null;
    }

    @Override
    public void init(MemorySegment conn) {
        int capable = fuse_conn_info.capable(conn);
        int want = fuse_conn_info.want(conn);
        // Async direct I/O: the kernel sends the pieces of one O_DIRECT request (loop device, fio) in parallel.
        want |= capable & fuse_lowlevel_h.FUSE_CAP_ASYNC_DIO();
        want |= capable & fuse_lowlevel_h.FUSE_CAP_ASYNC_READ();
        fuse_conn_info.want(conn, want);
        // How many requests the kernel keeps outstanding: as many as the queues take.
        fuse_conn_info.max_background(conn, maxBackground);
        fuse_conn_info.congestion_threshold(conn, Math.max(1, maxBackground * 3 / 4));
    }

    private void fillAttr(MemorySegment st, long ino) {
        stat.st_ino(st, ino);
        MemorySegment t = stat.st_mtim(st);
        timespec.tv_sec(t, mountedAt);
        timespec.tv_sec(stat.st_ctim(st), mountedAt);
        timespec.tv_sec(stat.st_atim(st), mountedAt);
        if (ino == ROOT) {
            stat.st_mode(st, S_IFDIR | 0755);
            stat.st_nlink(st, 2);
            stat.st_size(st, 0);
        } else {
            NamespaceFile f = file(ino);
            stat.st_mode(st, S_IFREG | 0600);
            stat.st_nlink(st, 1);
            stat.st_size(st, f.size());
            stat.st_blksize(st, Math.max(4096, f.blockSize()));
            stat.st_blocks(st, f.size() / 512);
        }
    }

    @Override
    public void lookup(FuseRequest r, long parent, String name) {
        if (parent != ROOT) {
            r.replyError(Errno.ENOTDIR);
            return;
        }
        for (NamespaceFile f : files) {
            if (f.name().equals(name)) {
                r.replyEntry(f.ino(), st -> fillAttr(st, f.ino()), ATTR_TIMEOUT);
                return;
            }
        }
        r.replyError(Errno.ENOENT);
    }

    @Override
    public void getattr(FuseRequest r, long ino) {
        if (ino != ROOT && file(ino) == null) {
            r.replyError(Errno.ENOENT);
            return;
        }
        r.replyAttr(st -> fillAttr(st, ino), ATTR_TIMEOUT);
    }

    /**
     * Nothing here can change: the size is the namespace's (O_TRUNC and ftruncate are ignored, as on a block
     * device), owner and mode are fixed. Replies with the unchanged attributes.
     */
    @Override
    public void setattr(FuseRequest r, long ino, MemorySegment attr, int toSet) {
        getattr(r, ino);
    }

    @Override
    public void open(FuseRequest r, long ino, MemorySegment fi) {
        if (ino == ROOT) {
            r.replyError(Errno.EISDIR);
            return;
        }
        if (file(ino) == null) {
            r.replyError(Errno.ENOENT);
            return;
        }
        fuse_file_info.fh(fi, ino);
        FileInfoBits.set(fi, FileInfoBits.DIRECT_IO, true);
        FileInfoBits.set(fi, FileInfoBits.KEEP_CACHE, false);
        r.replyOpen(fi);
    }

    @Override
    public void read(FuseRequest r, long ino, long size, long offset) {
        NamespaceFile f = file(ino);
        if (f == null) {
            r.replyError(ino == ROOT ? Errno.EISDIR : Errno.ENOENT);
            return;
        }
        if (offset >= f.size() || size == 0) {
            r.replyData(MemorySegment.NULL, 0);
            return;
        }
        long length = Math.min(size, f.size() - offset);
        f.read(offset, length).whenComplete((data, e) -> {
            if (e != null) {
                fail(r, "read", f, offset, length, e);
            } else {
                try (data) {
                    bytesRead.addAndGet(length);
                    r.replyData(data.bytes(), length);
                }
            }
        });
    }

    @Override
    public void write(FuseRequest r, long ino, MemorySegment data, long offset) {
        NamespaceFile f = file(ino);
        if (f == null) {
            r.replyError(ino == ROOT ? Errno.EISDIR : Errno.ENOENT);
            return;
        }
        if (offset >= f.size()) {
            r.replyError(data.byteSize() == 0 ? 0 : Errno.ENOSPC);
            return;
        }
        long length = Math.min(data.byteSize(), f.size() - offset);
        // libfuse reuses its buffer as soon as this returns: the copy is what the command carries.
        ScratchPool.Scratch copy = pool.take(length);
        copy.segment().copyFrom(data.asSlice(0, length));
        f.write(offset, copy.segment()).whenComplete((v, e) -> {
            copy.close();
            if (e != null) {
                fail(r, "write", f, offset, length, e);
            } else {
                bytesWritten.addAndGet(length);
                r.replyWrite(length);
            }
        });
    }

    @Override
    public void fsync(FuseRequest r, long ino, boolean datasync) {
        NamespaceFile f = file(ino);
        if (f == null) {
            r.replyError(ino == ROOT ? 0 : Errno.ENOENT);
            return;
        }
        f.flush().whenComplete((v, e) -> {
            if (e != null) {
                fail(r, "flush", f, 0, 0, e);
            } else {
                r.replyError(0);
            }
        });
    }

    @Override
    public void readdir(FuseRequest r, long ino, long size, long offset) {
        if (ino != ROOT) {
            r.replyError(Errno.ENOTDIR);
            return;
        }
        List<FuseRequest.DirEntry> entries = new ArrayList<>();
        entries.add(new FuseRequest.DirEntry(".", ROOT, S_IFDIR));
        entries.add(new FuseRequest.DirEntry("..", ROOT, S_IFDIR));
        for (NamespaceFile f : files) {
            entries.add(new FuseRequest.DirEntry(f.name(), f.ino(), S_IFREG));
        }
        r.replyDirectory(entries, size, offset);
    }

    /**
     * fallocate(2): PUNCH_HOLE (always with KEEP_SIZE) deallocates, ZERO_RANGE writes zeroes, plain allocation
     * inside the namespace is a no-op (every block exists); growing the file is impossible (EFBIG).
     */
    @Override
    public void fallocate(FuseRequest r, long ino, int mode, long offset, long length) {
        NamespaceFile f = file(ino);
        if (f == null) {
            r.replyError(ino == ROOT ? Errno.EISDIR : Errno.ENOENT);
            return;
        }
        if (offset < 0 || length <= 0) {
            r.replyError(Errno.EINVAL);
            return;
        }
        boolean keepSize = (mode & FALLOC_FL_KEEP_SIZE) != 0;
        int op = mode & ~FALLOC_FL_KEEP_SIZE;
        long end = Math.min(f.size(), offset + length);
        if (offset + length > f.size() && !keepSize) {
            r.replyError(Errno.EFBIG);
            return;
        }
        CompletableFuture<Void> done;
        if (op == 0) {
            r.replyError(0);
            return;
        } else if (op == FALLOC_FL_PUNCH_HOLE && keepSize) {
            done = offset < end ? f.zero(offset, end - offset, true) : CompletableFuture.completedFuture(null);
        } else if (op == FALLOC_FL_ZERO_RANGE) {
            done = offset < end ? f.zero(offset, end - offset, false) : CompletableFuture.completedFuture(null);
        } else {
            r.replyError(Errno.EOPNOTSUPP);
            return;
        }
        done.whenComplete((v, e) -> {
            if (e != null) {
                fail(r, op == FALLOC_FL_ZERO_RANGE ? "write zeroes" : "deallocate", f, offset, end - offset, e);
            } else {
                r.replyError(0);
            }
        });
    }

    /** An NVMe or transport failure is EIO for the application, and one log line for the operator. */
    private void fail(FuseRequest r, String what, NamespaceFile f, long offset, long length, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        failures.incrementAndGet();
        LOG.log(Level.WARNING, what + " " + f.name() + " bytes " + offset + "+" + length + " failed, EIO: "
                + FailureReport.oneLine(what, cause));
        r.replyError(Errno.EIO);
    }
}
