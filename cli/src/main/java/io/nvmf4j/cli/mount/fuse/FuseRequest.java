package io.nvmf4j.cli.mount.fuse;

import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_add_direntry;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_reply_attr;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_reply_buf;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_reply_entry;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_reply_err;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_reply_open;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_reply_write;

import io.nvmf4j.cli.mount.fuse.ffi.fuse_entry_param;
import io.nvmf4j.cli.mount.fuse.ffi.stat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One {@code fuse_req_t} (libfuse's {@code struct fuse_req}) awaiting its single reply. Replies may come from any
 * thread; a second reply is ignored (libfuse frees the request on the first one, so a second would be a use after
 * free).
 */
public final class FuseRequest {

    private final MemorySegment req;
    private final FuseSession session;
    private final AtomicBoolean answered = new AtomicBoolean();

    FuseRequest(MemorySegment req, FuseSession session) {
        this.req = req;
        this.session = session;
    }

    private boolean claim() {
        return answered.compareAndSet(false, true);
    }

    private void done() {
        session.replied();
    }

    /** {@code fuse_reply_err}: 0 is success for operations without data (fsync, fallocate, setattr-less calls). */
    public void replyError(int errno) {
        if (claim()) {
            try {
                fuse_reply_err(req, errno);
            } finally {
                done();
            }
        }
    }

    /** {@code fuse_reply_buf}: {@code data} is copied to /dev/fuse before this returns. */
    public void replyData(MemorySegment data, long length) {
        if (claim()) {
            try {
                fuse_reply_buf(req, data, length);
            } finally {
                done();
            }
        }
    }

    public void replyWrite(long count) {
        if (claim()) {
            try {
                fuse_reply_write(req, count);
            } finally {
                done();
            }
        }
    }

    /** {@code fuse_reply_attr} with {@code attr} filled by {@code fill}. */
    public void replyAttr(Consumer<MemorySegment> fill, double timeoutSeconds) {
        if (claim()) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment st = stat.allocate(a);
                fill.accept(st);
                fuse_reply_attr(req, st, timeoutSeconds);
            } finally {
                done();
            }
        }
    }

    /** {@code fuse_reply_entry} for inode {@code ino}. */
    public void replyEntry(long ino, Consumer<MemorySegment> fill, double timeoutSeconds) {
        if (claim()) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment e = fuse_entry_param.allocate(a);
                fuse_entry_param.ino(e, ino);
                fuse_entry_param.generation(e, 1);
                MemorySegment st = fuse_entry_param.attr(e);
                fill.accept(st);
                fuse_entry_param.attr_timeout(e, timeoutSeconds);
                fuse_entry_param.entry_timeout(e, timeoutSeconds);
                fuse_reply_entry(req, e);
            } finally {
                done();
            }
        }
    }

    public void replyOpen(MemorySegment fileInfo) {
        if (claim()) {
            try {
                fuse_reply_open(req, fileInfo);
            } finally {
                done();
            }
        }
    }

    /** A directory entry for {@link #replyDirectory}. */
    public record DirEntry(String name, long ino, int mode) {
    }

    /**
     * Replies to readdir with the entries from index {@code offset} on that fit in {@code size} bytes; each
     * entry's "next offset" is its index + 1 (fuse_lowlevel.h, readdir: off is the value of the last entry's
     * next-offset).
     */
    public void replyDirectory(List<DirEntry> entries, long size, long offset) {
        if (!claim()) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(Math.max(1, size));
            MemorySegment st = stat.allocate(a);
            long used = 0;
            for (int i = (int) offset; i < entries.size(); i++) {
                DirEntry d = entries.get(i);
                stat.st_ino(st, d.ino());
                stat.st_mode(st, d.mode());
                MemorySegment name = a.allocateFrom(d.name());
                long need = fuse_add_direntry(req, MemorySegment.NULL, 0, name, st, i + 1);
                if (used + need > size) {
                    break;
                }
                fuse_add_direntry(req, buf.asSlice(used), size - used, name, st, i + 1);
                used += need;
            }
            fuse_reply_buf(req, buf, used);
        } finally {
            done();
        }
    }
}
