package io.nvmf4j.target.backend;

import io.nvmf4j.uring.CompletionHandler;
import io.nvmf4j.uring.IoUring;
import io.nvmf4j.uring.IoUringException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The io_uring side of one poll group's {@link BackendIo} in {@link BackendIoMode#URING} mode (SPDK's
 * {@code bdev_uring_group_channel} with its ring): it turns an operation's slot into an SQE (a fixed file from the
 * ring's registered file table, a fixed buffer when the data lies in memory registered with
 * {@link #registerBuffers}, a bounce buffer when O_DIRECT cannot take the caller's), submits with
 * {@code io_uring_enter} and reaps the completions into {@link BackendIo}, which decides what each one means.
 *
 * <p>Threads: owned by the poll-group thread that owns its {@link BackendIo}; every method runs there, so the
 * ring's submission and completion queues, the file table and the bounce buffers have that one user. Only
 * {@link #close} frees the bounce memory, and only when no operation may still use it.
 */
final class BackendRing {

    /** The engine's logger: what the ring reports is the backend I/O's, under one name. */
    private static final System.Logger LOG = System.getLogger(BackendIo.class.getName());
    /** User data of the ring's own cancel requests (their completions are ignored). */
    static final long CANCEL_USER_DATA = -1L;
    private static final long ALIGNMENT = DescriptorIo.ALIGNMENT;
    /** Slots of the ring's registered file table; namespaces beyond it on one group use plain descriptors. */
    static final int FILE_SLOTS = 64;
    /**
     * Slots whose bounce buffer lives in memory registered with the ring, and its size: in-capsule write data (at
     * most a port's inline size, 4 KiB by default as nvmet's) then goes as a fixed buffer too, so the kernel does
     * not pin its page per write. Larger or later bounces are allocated plainly.
     */
    static final int REGISTERED_BOUNCE_SLOTS = 128;
    static final long REGISTERED_BOUNCE_SIZE = 16 * 1024;

    private final IoUring ring;
    private final String name;
    private final Arena arena = Arena.ofShared();
    /** Bounce memory registered with the ring beside the caller's buffers (null until {@link #registerBuffers}). */
    private MemorySegment registeredBounces;
    private boolean buffersRefusedLogged;
    /** The backend whose descriptor fills each slot of the ring's file table (empty when the ring has none). */
    private AsyncBackend[] fileOwners = new AsyncBackend[0];
    /** The backend {@link #file} answered last, and its handle then (a registered slot, or the plain descriptor). */
    private AsyncBackend lastFileOwner;
    private int lastFileHandle;
    private boolean filesRefusedLogged;

    private BackendRing(IoUring ring, String name) {
        this.ring = ring;
        this.name = name;
    }

    /** A ring of {@code entries} submission entries with a registered file table when the kernel grants one. */
    static BackendRing open(int entries, String name) throws IoUringException {
        BackendRing r = new BackendRing(IoUring.open(entries), name);
        try {
            r.ring.registerFileTable(FILE_SLOTS);
            r.fileOwners = new AsyncBackend[FILE_SLOTS];
        } catch (IoUringException e) {
            r.filesRefused(e);
        }
        return r;
    }

    private void filesRefused(IoUringException e) {
        if (!filesRefusedLogged) {
            filesRefusedLogged = true;
            LOG.log(Level.INFO, "{0}: io_uring refused registered files ({1}); requests name plain descriptors",
                    name, e.getMessage());
        }
    }

    /** Backends whose descriptor is in the ring's registered file table now. */
    int registeredFiles() {
        int n = 0;
        for (AsyncBackend owner : fileOwners) {
            if (owner != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * The file handle {@code b}'s ring operations name: its slot in the registered file table, taken on its first
     * operation here, or its plain descriptor when the table is full or was refused.
     */
    private int file(AsyncBackend b) {
        if (b == lastFileOwner) {
            return lastFileHandle; // the common case, one namespace after another: no scan of the table
        }
        int handle = lookUpFile(b);
        if (!b.isClosed()) {
            lastFileOwner = b;
            lastFileHandle = handle;
        }
        return handle;
    }

    private int lookUpFile(AsyncBackend b) {
        AsyncBackend[] owners = fileOwners;
        int empty = -1;
        for (int i = 0; i < owners.length; i++) {
            AsyncBackend owner = owners[i];
            if (owner == b) {
                return IoUring.fixedFile(i);
            }
            if (owner == null && empty < 0) {
                empty = i;
            }
        }
        int fd = b.descriptor();
        if (empty < 0 || b.isClosed()) {
            return fd;
        }
        try {
            ring.setFile(empty, fd);
        } catch (IoUringException e) {
            filesRefused(e);
            return fd;
        }
        owners[empty] = b;
        return IoUring.fixedFile(empty);
    }

    /** Empties the file-table slots of closed backends: the table's reference would keep their files open. */
    void releaseClosedFiles() {
        AsyncBackend[] owners = fileOwners;
        for (int i = 0; i < owners.length; i++) {
            if (owners[i] != null && owners[i].isClosed()) {
                lastFileOwner = null; // a slot comes free: a backend answered with its plain descriptor may take it
                owners[i] = null;
                try {
                    ring.setFile(i, -1);
                } catch (IoUringException e) {
                    LOG.log(Level.WARNING, "{0}: cannot empty registered file slot {1}: {2}", name, i,
                            e.getMessage());
                }
            }
        }
    }

    /**
     * Registers memory the data buffers come from (the poll group's pool) with the ring, so reads and writes into
     * it go as fixed buffers; the first bounce buffers are registered with it. Best effort: a kernel or
     * RLIMIT_MEMLOCK that refuses leaves plain reads and writes, said once in the log.
     */
    void registerBuffers(MemorySegment... memory) {
        if (registeredBounces == null) {
            registeredBounces = arena.allocate(REGISTERED_BOUNCE_SLOTS * REGISTERED_BOUNCE_SIZE, ALIGNMENT);
        }
        MemorySegment[] all = Arrays.copyOf(memory, memory.length + 1);
        all[memory.length] = registeredBounces;
        try {
            ring.registerBuffers(all);
        } catch (IoUringException e) {
            if (!buffersRefusedLogged) {
                buffersRefusedLogged = true;
                LOG.log(Level.INFO, "{0}: io_uring refused fixed buffers ({1}); data goes as plain reads and writes",
                        name, e.getMessage());
            }
        }
    }

    /** Whether the ring has an opcode for {@code s} (the rest goes to the namespace's workers). */
    static boolean runs(BackendSlot s) {
        AsyncBackend b = s.backend;
        if (b.descriptor() < 0) {
            return false;
        }
        return switch (s.op) {
            case READ, WRITE, WRITE_FUA, FLUSH -> true;
            case WRITE_ZEROES, DEALLOCATE -> b.fallocateMode(s.op) >= 0;
        };
    }

    /**
     * Whether the ring's {@code result} for {@code s} sends it to the namespace's workers, whose synchronous code
     * has the fallbacks: O_DIRECT refused, fallocate mode not supported, a retry asked for, a short transfer.
     */
    static boolean needsWorker(BackendSlot s, int result) {
        if (s.abandoned) {
            return false;
        }
        if (result == -LinuxCalls.EINVAL && s.op.movesData() && s.backend.directIo()) {
            return true;
        }
        if (result == -LinuxCalls.EOPNOTSUPP && (s.op == BackendOp.WRITE_ZEROES || s.op == BackendOp.DEALLOCATE)) {
            return true;
        }
        if (result == -LinuxCalls.EAGAIN || result == -4 /* EINTR */) {
            return true;
        }
        return s.op.movesData() && result >= 0 && result < s.piece;
    }

    /** Fills an SQE for {@code s}; when the SQ is full, submits what is there and tries once more. */
    boolean prepare(BackendSlot s) {
        if (prepareOnce(s)) {
            return true;
        }
        submit();
        return prepareOnce(s);
    }

    private boolean prepareOnce(BackendSlot s) {
        int fd = file(s.backend);
        long ud = s.userData();
        return switch (s.op) {
            case READ -> {
                MemorySegment target = dataBuffer(s);
                int index = ring.registeredBufferIndex(target);
                yield index >= 0
                        ? ring.prepareReadFixed(fd, target, s.offset, index, ud)
                        : ring.prepareRead(fd, target, s.offset, ud);
            }
            case WRITE, WRITE_FUA -> {
                // a piece of a split write is aligned (only such writes are split): no bounce
                MemorySegment source = s.piece == s.length ? dataBuffer(s) : s.pieceBuffer();
                int flags = s.op == BackendOp.WRITE_FUA ? IoUring.RWF_DSYNC : 0;
                int index = ring.registeredBufferIndex(source);
                yield index >= 0
                        ? ring.prepareWriteFixed(fd, source, s.pieceOffset(), index, flags, ud)
                        : ring.prepareWrite(fd, source, s.pieceOffset(), flags, ud);
            }
            case FLUSH -> ring.prepareFsync(fd, true, ud);
            case WRITE_ZEROES, DEALLOCATE -> ring.prepareFallocate(fd, s.backend.fallocateMode(s.op), s.offset,
                    s.length, ud);
        };
    }

    /**
     * The memory the ring reads into or writes from: the caller's buffer, or (O_DIRECT with a buffer it cannot take)
     * the slot's aligned bounce buffer, filled now for a write.
     */
    private MemorySegment dataBuffer(BackendSlot s) {
        MemorySegment b = s.buffer;
        if (DescriptorIo.aligned(b, s.backend.directIo())) {
            s.bounced = false;
            return b;
        }
        if (s.bounce == null || s.bounce.byteSize() < s.length) {
            s.bounce = registeredBounces != null && s.index < REGISTERED_BOUNCE_SLOTS
                    && s.length <= REGISTERED_BOUNCE_SIZE
                    ? registeredBounces.asSlice(s.index * REGISTERED_BOUNCE_SIZE, REGISTERED_BOUNCE_SIZE)
                    : arena.allocate(Math.max(s.length, ALIGNMENT), ALIGNMENT);
            s.bounceView = null;
        }
        if (s.bounceView == null || s.bounceView.byteSize() != s.length) {
            s.bounceView = s.bounce.asSlice(0, s.length);
        }
        s.bounced = true;
        if (s.op != BackendOp.READ) {
            MemorySegment.copy(b, 0, s.bounceView, 0, s.length);
        }
        return s.bounceView;
    }

    /** {@code io_uring_enter}: submits what is prepared, runs completion work the kernel left for this thread. */
    void submit() {
        try {
            ring.submit();
        } catch (IoUringException e) {
            // the prepared SQEs stay in the ring and go with the next round
            LOG.log(Level.WARNING, "{0}: io_uring_enter failed: {1}", name, e.getMessage());
        }
    }

    /** Whether SQEs wait for {@code io_uring_enter}, or the kernel left completion work for this thread. */
    boolean needsEnter() {
        return ring.needsEnter();
    }

    /** SQEs prepared and not yet submitted. */
    int prepared() {
        return ring.prepared();
    }

    /** Hands every completion in the CQ to {@code handler}; returns how many. */
    int reap(CompletionHandler handler) {
        return ring.reap(handler);
    }

    /** Asks the kernel to cancel {@code s}'s operation (its own completion still comes, and ends the slot). */
    void cancel(BackendSlot s) {
        ring.prepareCancel(s.userData(), CANCEL_USER_DATA);
    }

    /**
     * Closes the ring (the kernel cancels and waits for what it still runs); frees the bounce buffers when
     * {@code freeBounces} (a worker may still write into one of an operation not ended).
     */
    void close(boolean freeBounces) {
        ring.close();
        if (freeBounces) {
            arena.close();
        }
    }
}
