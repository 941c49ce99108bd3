package io.nvmf4j.cli.mount.fuse;

import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_reply_err;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_session_destroy;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_session_exit;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_session_loop;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_session_mount;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_session_new;
import static io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_h.fuse_session_unmount;

import io.nvmf4j.cli.mount.fuse.ffi.fuse_args;
import io.nvmf4j.cli.mount.fuse.ffi.fuse_lowlevel_ops;
import io.nvmf4j.uring.Errno;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * A libfuse low-level session (fuse_lowlevel.h, FUSE_USE_VERSION 35) serving a {@link FileSystem} on a mount
 * point: {@code fuse_session_new} with our upcall table, {@code fuse_session_mount}, then
 * {@code fuse_session_loop} on one platform thread.
 *
 * <p>Why a single-threaded loop with asynchronous replies rather than {@code fuse_session_loop_mt}: every
 * operation that touches the network is submitted to the initiator and answered from its completion, so the loop
 * thread never waits on the network; the kernel keeps up to {@code max_background} requests in flight and they
 * reach the target in parallel up to its queue depth. A multi-threaded loop would need one blocked thread per
 * outstanding command (and up to ctrl-loss-tmo of blocked threads while the target is away), for nothing.
 *
 * <p>Shutdown mirrors libfuse's own order: unmount (which makes the loop's read of /dev/fuse fail with ENODEV
 * and the loop return), wait for the replies still owed, {@code fuse_session_unmount} (closes the fd; sees the
 * mount already gone), {@code fuse_session_destroy}.
 */
public final class FuseSession implements AutoCloseable {

    private static final Logger LOG = System.getLogger(FuseSession.class.getName());

    private final Arena arena = Arena.ofShared();
    private final FileSystem fs;
    private final String mountpoint;
    private final AtomicLong outstanding = new AtomicLong();
    private final MemorySegment session;
    private final Thread loop;
    private volatile int loopResult = Integer.MIN_VALUE;
    private boolean closed;

    private FuseSession(FileSystem fs, String mountpoint, List<String> options) throws IOException {
        this.fs = fs;
        this.mountpoint = mountpoint;
        MemorySegment ops = operations();
        MemorySegment args = arguments(options);
        session = fuse_session_new(args, ops, fuse_lowlevel_ops.sizeof(), MemorySegment.NULL);
        if (session.equals(MemorySegment.NULL)) {
            arena.close();
            throw new IOException("libfuse refused the session options " + options);
        }
        if (fuse_session_mount(session, arena.allocateFrom(mountpoint)) != 0) {
            fuse_session_destroy(session);
            arena.close();
            throw new IOException("cannot mount FUSE on " + mountpoint
                    + " (is it an existing empty directory, and is /dev/fuse there?)");
        }
        loop = Thread.ofPlatform().name("fuse-loop").daemon(true).unstarted(() -> loopResult = fuse_session_loop(session));
        loop.start();
    }

    /**
     * Mounts {@code fs} on {@code mountpoint} with the FUSE mount options {@code options} (e.g.
     * {@code allow_other}, {@code fsname=...}) and starts serving.
     */
    public static FuseSession mount(FileSystem fs, String mountpoint, List<String> options) throws IOException {
        return new FuseSession(fs, mountpoint, options);
    }

    public String mountpoint() {
        return mountpoint;
    }

    /** True while the loop serves: false once the mount went away (ours or someone's umount / fusermount -u). */
    public boolean serving() {
        return loop.isAlive();
    }

    /** Waits up to {@code millis} for the loop to end; true if it has. */
    public boolean awaitLoopEnd(long millis) throws InterruptedException {
        loop.join(millis);
        return !loop.isAlive();
    }

    /** Requests counted as received and not yet answered. */
    public long outstanding() {
        return outstanding.get();
    }

    void replied() {
        outstanding.decrementAndGet();
    }

    /**
     * Unmounts (lazily when busy), stops the loop, waits up to {@code drainMillis} for owed replies, frees the
     * session. Returns null when clean, else what went wrong in one sentence.
     */
    public synchronized String unmount(long drainMillis) {
        if (closed) {
            return null;
        }
        closed = true;
        String problem = null;
        if (loop.isAlive()) {
            int errno = Libc.umount2(mountpoint, 0);
            // A loop device just detached may hold the file a moment longer (udev probing it): retry briefly.
            for (int i = 0; i < 50 && errno == Errno.EBUSY; i++) {
                sleepQuietly(100);
                errno = Libc.umount2(mountpoint, 0);
            }
            if (errno == Errno.EBUSY) {
                problem = mountpoint + " was busy; detached it lazily";
                Libc.umount2(mountpoint, Libc.MNT_DETACH);
                // Its users keep the connection (and the loop) alive: waiting for them could take forever.
                drainMillis = Math.min(drainMillis, 5_000);
            } else if (errno != 0 && errno != Errno.EINVAL) {
                problem = "umount " + mountpoint + " failed (errno " + errno + ")";
            }
            fuse_session_exit(session);
        }
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainMillis);
            loop.join(Math.max(1, drainMillis));
            while (outstanding.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (loop.isAlive() || outstanding.get() > 0) {
            // libfuse would free requests still owed a reply; leave the session to the process exit instead.
            LOG.log(Level.WARNING, "FUSE session on " + mountpoint + " not freed: loop alive " + loop.isAlive() + ", "
                    + outstanding.get() + " replies owed");
            return problem != null ? problem : "the FUSE session on " + mountpoint + " did not stop in time";
        }
        fuse_session_unmount(session);
        fuse_session_destroy(session);
        arena.close();
        return problem;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        unmount(5_000);
    }

    // ---- libfuse argument vector and upcall table -----------------------------------------------------------

    private MemorySegment arguments(List<String> options) {
        int argc = options.isEmpty() ? 1 : 3;
        MemorySegment argv = arena.allocate(ValueLayout.ADDRESS, argc + 1);
        argv.setAtIndex(ValueLayout.ADDRESS, 0, arena.allocateFrom("nvmf4j"));
        if (!options.isEmpty()) {
            argv.setAtIndex(ValueLayout.ADDRESS, 1, arena.allocateFrom("-o"));
            argv.setAtIndex(ValueLayout.ADDRESS, 2, arena.allocateFrom(String.join(",", options)));
        }
        argv.setAtIndex(ValueLayout.ADDRESS, argc, MemorySegment.NULL);
        MemorySegment args = fuse_args.allocate(arena);
        fuse_args.argc(args, argc);
        fuse_args.argv(args, argv);
        fuse_args.allocated(args, 0);
        return args;
    }

    private FuseRequest request(MemorySegment req) {
        outstanding.incrementAndGet();
        return new FuseRequest(req, this);
    }

    /**
     * An exception must never unwind into libfuse (the JVM would crash): every upcall answers EIO instead and
     * logs the bug.
     */
    private void guarded(FuseRequest r, String op, Runnable body) {
        try {
            body.run();
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "FUSE " + op + " failed", t);
            r.replyError(Errno.EIO);
        }
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private static String cString(MemorySegment p) {
        return p.reinterpret(Integer.MAX_VALUE).getString(0);
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private MemorySegment operations() {
        MemorySegment ops = fuse_lowlevel_ops.allocate(arena);
        ops.fill((byte) 0);
        fuse_lowlevel_ops.init(ops, fuse_lowlevel_ops.init.allocate((userdata, conn) -> {
            try {
                fs.init(conn.reinterpret(io.nvmf4j.cli.mount.fuse.ffi.fuse_conn_info.sizeof()));
            } catch (Throwable t) {
                LOG.log(Level.WARNING, "FUSE init failed", t);
            }
        }, arena));
        fuse_lowlevel_ops.lookup(ops, fuse_lowlevel_ops.lookup.allocate((req, parent, name) -> {
            FuseRequest r = request(req);
            guarded(r, "lookup", () -> fs.lookup(r, parent, cString(name)));
        }, arena));
        fuse_lowlevel_ops.getattr(ops, fuse_lowlevel_ops.getattr.allocate((req, ino, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "getattr", () -> fs.getattr(r, ino));
        }, arena));
        fuse_lowlevel_ops.setattr(ops, fuse_lowlevel_ops.setattr.allocate((req, ino, attr, toSet, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "setattr", () -> fs.setattr(r, ino,
                    attr.reinterpret(io.nvmf4j.cli.mount.fuse.ffi.stat.sizeof()), toSet));
        }, arena));
        fuse_lowlevel_ops.open(ops, fuse_lowlevel_ops.open.allocate((req, ino, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "open", () -> fs.open(r, ino,
                    fi.reinterpret(io.nvmf4j.cli.mount.fuse.ffi.fuse_file_info.sizeof())));
        }, arena));
        fuse_lowlevel_ops.read(ops, fuse_lowlevel_ops.read.allocate((req, ino, size, off, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "read", () -> fs.read(r, ino, size, off));
        }, arena));
        fuse_lowlevel_ops.write(ops, fuse_lowlevel_ops.write.allocate((req, ino, buf, size, off, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "write", () -> fs.write(r, ino, buf.reinterpret(size), off));
        }, arena));
        // flush (every close(2)) and release have nothing to do: durability is fsync's job, as on a block device.
        fuse_lowlevel_ops.flush(ops, fuse_lowlevel_ops.flush.allocate((req, ino, fi) -> fuse_reply_err(req, 0), arena));
        fuse_lowlevel_ops.release(ops, fuse_lowlevel_ops.release.allocate((req, ino, fi) -> fuse_reply_err(req, 0),
                arena));
        fuse_lowlevel_ops.fsync(ops, fuse_lowlevel_ops.fsync.allocate((req, ino, datasync, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "fsync", () -> fs.fsync(r, ino, datasync != 0));
        }, arena));
        fuse_lowlevel_ops.readdir(ops, fuse_lowlevel_ops.readdir.allocate((req, ino, size, off, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "readdir", () -> fs.readdir(r, ino, size, off));
        }, arena));
        fuse_lowlevel_ops.fallocate(ops, fuse_lowlevel_ops.fallocate.allocate((req, ino, mode, off, len, fi) -> {
            FuseRequest r = request(req);
            guarded(r, "fallocate", () -> fs.fallocate(r, ino, mode, off, len));
        }, arena));
        return ops;
    }
}
