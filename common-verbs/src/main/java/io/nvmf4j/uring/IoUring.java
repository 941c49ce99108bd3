package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One io_uring instance: an SQ of {@link #entries()} SQEs and a CQ of twice that, mapped into this process, driven
 * by raw {@code io_uring_setup}/{@code io_uring_enter}/{@code io_uring_register} system calls (see the package
 * documentation for why not liburing).
 *
 * <p><b>Single-threaded</b>: one owner thread prepares, submits and reaps; nothing here is locked. Hand the ring to
 * another thread only with a happens-before edge (a queue, a thread start).
 *
 * <p>The per-I/O path ({@code prepare*}, {@link #submit()}, {@link #reap}) allocates nothing: SQEs are written in
 * place into the mapped array, the system call uses a capture-state segment made at {@link #open}, and CQEs are
 * handed to the {@link CompletionHandler} as primitives. A failed I/O is not an exception: its CQE carries
 * {@code -errno}. Buffers passed to a {@code prepare*} must stay valid until their CQE is reaped, and the caller
 * should reap every outstanding I/O before {@link #close()} and before freeing the buffers.
 */
public final class IoUring implements AutoCloseable {
    /** {@code RWF_DSYNC} (include/uapi/linux/fs.h): the write is durable as with O_DSYNC when its CQE comes. */
    public static final int RWF_DSYNC = 2;
    /** fallocate(2) modes (include/uapi/linux/falloc.h). PUNCH_HOLE must be combined with KEEP_SIZE. */
    public static final int FALLOC_FL_KEEP_SIZE = 0x01;
    public static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    public static final int FALLOC_FL_ZERO_RANGE = 0x10;

    /** {@code IORING_MAX_ENTRIES} of io_uring/io_uring.c. */
    private static final int MAX_ENTRIES = 32768;
    /** {@code IORING_ENTER_GETEVENTS}: wait for {@code min_complete} CQEs (and flush overflowed ones). */
    private static final int ENTER_GETEVENTS = 1;
    /** {@code IORING_REGISTER_BUFFERS} of {@code enum io_uring_register_op}. */
    private static final int REGISTER_BUFFERS = 0;
    /** {@code IORING_REGISTER_FILES}: a table of descriptors, -1 for an empty slot (5.5+). */
    private static final int REGISTER_FILES = 2;
    /** {@code IORING_REGISTER_FILES_UPDATE}: replaces slots of the table (5.5+). */
    private static final int REGISTER_FILES_UPDATE = 6;
    /** {@code struct io_uring_files_update { __u32 offset; __u32 resv; __aligned_u64 fds; }}. */
    private static final long FILES_UPDATE_SIZE = 16;
    /** The bit of a file handle that makes it a registered file's slot (see {@link #fixedFile}). */
    private static final int FIXED_FILE_BIT = Integer.MIN_VALUE;

    private final Arena arena;
    private final MemorySegment callState;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final SqeSize sqeSize;
    private int ringFd;
    private RegisteredBuffers buffers = RegisteredBuffers.NONE;
    private int fileSlots;
    private MemorySegment filesUpdate;

    private IoUring(Arena arena, MemorySegment callState, int ringFd, RingMemory memory, RingParams params,
            SqeSize sqeSize) {
        this.arena = arena;
        this.callState = callState;
        this.ringFd = ringFd;
        this.sqeSize = sqeSize;
        this.sq = new SubmissionQueue(memory, params, sqeSize);
        this.cq = new CompletionQueue(memory, params);
    }

    /**
     * Why a ring cannot be had here, or null when it can: checks {@code /proc/sys/kernel/io_uring_disabled}
     * (1 = only for a group, 2 = off), then tries {@code io_uring_setup(2)} of a 2-entry ring (ENOSYS: kernel without
     * io_uring, EPERM: seccomp/container). Each call sets up (and closes) a ring: check once.
     */
    public static String unavailableReason() {
        return Availability.reason();
    }

    /**
     * Sets up a ring of {@code entries} 64-byte SQEs and {@code 2 * entries} CQEs ({@code IORING_SETUP_CQSIZE}) and
     * maps it.
     *
     * @param entries a power of two, 1 to 32768
     * @throws IoUringException if {@code io_uring_setup} or {@code mmap} fails (EPERM, ENOSYS, ENOMEM, EMFILE...)
     */
    public static IoUring open(int entries) throws IoUringException {
        return open(entries, SqeSize.SQE64);
    }

    /**
     * {@link #open(int)} with SQEs of {@code sqeSize}: {@link SqeSize#SQE128} for URING_CMDs with more than 16 bytes
     * of payload (EINVAL from a kernel before 5.19, which has no SQE128).
     */
    @SuppressWarnings("MustBeClosedChecker") // the new IoUring owns the arena and closes it in close(); closed here on failure
    public static IoUring open(int entries, SqeSize sqeSize) throws IoUringException {
        if (entries < 1 || entries > MAX_ENTRIES || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException("entries must be a power of two from 1 to " + MAX_ENTRIES + ": "
                    + entries);
        }
        Arena arena = Arena.ofShared();
        int fd = -1;
        try {
            MemorySegment callState = Syscalls.newCallState(arena);
            // a polling owner reads the CQ without entering the kernel: let completions that need its task context
            // wait for its next enter instead of interrupting it (EINVAL before 5.19: without them)
            int size = sqeSize.setupFlag();
            MemorySegment request = RingParams.request(arena, 2 * entries, RingParams.SETUP_CQSIZE
                    | RingParams.SETUP_COOP_TASKRUN | RingParams.SETUP_TASKRUN_FLAG | size);
            long rc = Syscalls.syscall(callState, Syscalls.IO_URING_SETUP, entries, request.address(), 0, 0, 0, 0);
            if (rc == -Errno.EINVAL) {
                request = RingParams.request(arena, 2 * entries, RingParams.SETUP_CQSIZE | size);
                rc = Syscalls.syscall(callState, Syscalls.IO_URING_SETUP, entries, request.address(), 0, 0, 0, 0);
            }
            if (rc < 0) {
                throw new IoUringException("io_uring_setup", (int) -rc);
            }
            fd = (int) rc;
            RingParams params = RingParams.read(request);
            RingMemory memory = RingMemory.map(arena, callState, fd, params, sqeSize);
            return new IoUring(arena, callState, fd, memory, params, sqeSize);
        } catch (IoUringException | RuntimeException | Error e) {
            arena.close();
            if (fd >= 0) {
                Syscalls.close(fd);
            }
            throw e;
        }
    }

    /** The SQ size: how many SQEs can be prepared before a {@link #submit()}. */
    public int entries() {
        return sq.entries();
    }

    /** The size of this ring's SQEs, chosen at {@link #open(int, SqeSize)}. */
    public SqeSize sqeSize() {
        return sqeSize;
    }

    /**
     * {@code IORING_REGISTER_BUFFERS}: one iovec per segment (native segments); later
     * {@link #prepareReadFixed}/{@link #prepareWriteFixed} use the index in this array. The kernel pins the pages
     * and charges them to RLIMIT_MEMLOCK; a ring registers once (a second call fails with EBUSY).
     *
     * @throws IoUringException e.g. ENOMEM over RLIMIT_MEMLOCK, EBUSY when already registered: the ring stays usable
     *                          without fixed buffers
     */
    public void registerBuffers(MemorySegment... buffers) throws IoUringException {
        requireOpen();
        RegisteredBuffers candidate = RegisteredBuffers.of(buffers);
        try (Arena call = Arena.ofConfined()) {
            long rc = Syscalls.syscall(callState, Syscalls.IO_URING_REGISTER, ringFd, REGISTER_BUFFERS,
                    candidate.iovecs(call).address(), candidate.count(), 0, 0);
            if (rc < 0) {
                throw new IoUringException("io_uring_register(IORING_REGISTER_BUFFERS)", (int) -rc);
            }
        }
        this.buffers = candidate;
    }

    /**
     * {@code IORING_REGISTER_FILES} of a table of {@code slots} empty slots, filled later by {@link #setFile}: a
     * request on a registered file skips the kernel's per-request file lookup and reference count (fget/fput, atomic
     * in a multi-threaded process). A ring registers one table.
     *
     * @throws IoUringException e.g. EMFILE beyond RLIMIT_NOFILE, EBUSY when already registered: the ring stays
     *                          usable with plain descriptors
     */
    public void registerFileTable(int slots) throws IoUringException {
        requireOpen();
        if (slots <= 0) {
            throw new IllegalArgumentException("file table of " + slots + " slots");
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment fds = call.allocate(JAVA_INT, slots);
            fds.fill((byte) -1);
            long rc = Syscalls.syscall(callState, Syscalls.IO_URING_REGISTER, ringFd, REGISTER_FILES, fds.address(),
                    slots, 0, 0);
            if (rc < 0) {
                throw new IoUringException("io_uring_register(IORING_REGISTER_FILES)", (int) -rc);
            }
        }
        this.fileSlots = slots;
        this.filesUpdate = arena.allocate(FILES_UPDATE_SIZE + 8, 8);
    }

    /** Slots of the registered file table (0: none registered). */
    public int fileSlots() {
        return fileSlots;
    }

    /**
     * {@code IORING_REGISTER_FILES_UPDATE} of one slot: {@code fd} from now on, or -1 to empty it. The table holds
     * its own reference to the file, so a descriptor closed by its owner keeps the file open until its slot is
     * emptied; requests already submitted keep theirs until they end. A system call; no allocation.
     */
    public void setFile(int slot, int fd) throws IoUringException {
        requireOpen();
        if (slot < 0 || slot >= fileSlots) {
            throw new IllegalArgumentException("file slot " + slot + " outside the table of " + fileSlots);
        }
        MemorySegment u = filesUpdate;
        MemorySegment fds = u.asSlice(FILES_UPDATE_SIZE, 4);
        fds.set(JAVA_INT, 0, fd);
        u.set(JAVA_INT, 0, slot);
        u.set(JAVA_INT, 4, 0);
        u.set(JAVA_LONG, 8, fds.address());
        long rc = Syscalls.syscall(callState, Syscalls.IO_URING_REGISTER, ringFd, REGISTER_FILES_UPDATE, u.address(),
                1, 0, 0);
        if (rc < 0) {
            throw new IoUringException("io_uring_register(IORING_REGISTER_FILES_UPDATE)", (int) -rc);
        }
    }

    /**
     * The file handle of registered-file-table slot {@code slot}, for the {@code fd} argument of the prepare
     * methods, which otherwise take a plain descriptor (the SQE then carries {@code IOSQE_FIXED_FILE}).
     */
    public static int fixedFile(int slot) {
        if (slot < 0) {
            throw new IllegalArgumentException("file slot " + slot);
        }
        return FIXED_FILE_BIT | slot;
    }

    /** True when {@code fd} is a {@link #fixedFile} handle rather than a plain descriptor. */
    public static boolean isFixedFile(int fd) {
        return fd != -1 && (fd & FIXED_FILE_BIT) != 0;
    }

    /** Index of the registered buffer containing {@code [address, address + length)} of the segment, or -1. */
    public int registeredBufferIndex(MemorySegment segment) {
        return buffers.indexOf(segment);
    }

    // The prepare methods take a file as a plain descriptor or as fixedFile(slot) of the registered file table.

    /** {@code IORING_OP_READ} of {@code buffer.byteSize()} bytes at {@code offset}; false when the SQ is full. */
    public boolean prepareRead(int fd, MemorySegment buffer, long offset, long userData) {
        return prepare(Sqe.OP_READ, fd, offset, address(buffer), length(buffer), 0, 0, userData);
    }

    /** {@code IORING_OP_WRITE}; {@code rwFlags} as pwritev2(2), e.g. {@link #RWF_DSYNC}. False when the SQ is full. */
    public boolean prepareWrite(int fd, MemorySegment buffer, long offset, int rwFlags, long userData) {
        return prepare(Sqe.OP_WRITE, fd, offset, address(buffer), length(buffer), rwFlags, 0, userData);
    }

    /** {@code IORING_OP_READ_FIXED} into registered buffer {@code bufIndex}, which must contain {@code buffer}. */
    public boolean prepareReadFixed(int fd, MemorySegment buffer, long offset, int bufIndex, long userData) {
        return prepare(Sqe.OP_READ_FIXED, fd, offset, address(buffer), length(buffer), 0, bufIndex, userData);
    }

    /** {@code IORING_OP_WRITE_FIXED} from registered buffer {@code bufIndex}, which must contain {@code buffer}. */
    public boolean prepareWriteFixed(int fd, MemorySegment buffer, long offset, int bufIndex, int rwFlags,
            long userData) {
        return prepare(Sqe.OP_WRITE_FIXED, fd, offset, address(buffer), length(buffer), rwFlags, bufIndex, userData);
    }

    /** {@code IORING_OP_FSYNC}: fsync(2), or fdatasync(2) with {@code IORING_FSYNC_DATASYNC}. */
    public boolean prepareFsync(int fd, boolean dataSync, long userData) {
        return prepare(Sqe.OP_FSYNC, fd, 0, 0, 0, dataSync ? Sqe.FSYNC_DATASYNC : 0, 0, userData);
    }

    /**
     * {@code IORING_OP_FALLOCATE}: fallocate(2) with {@code mode} ({@code FALLOC_FL_*}). The kernel's
     * io_fallocate_prep takes the length from {@code sqe->addr} and the mode from {@code sqe->len}.
     */
    public boolean prepareFallocate(int fd, int mode, long offset, long length, long userData) {
        return prepare(Sqe.OP_FALLOCATE, fd, offset, length, mode, 0, 0, userData);
    }

    /**
     * {@code IORING_OP_URING_CMD}: command {@code cmdOp} with the bytes of {@code command} as its payload
     * ({@code sqe->cmd}, the rest of it zeroed), for the driver of {@code fd} (a character device's or a socket's
     * {@code uring_cmd}, e.g. ublk's {@code UBLK_U_CMD_*} and {@code UBLK_U_IO_*}). The payload is copied into the
     * SQE, so {@code command} may be reused at once; what it points to must stay valid until the CQE. The CQE's
     * result is the driver's. False when the SQ is full.
     *
     * @throws IllegalArgumentException if {@code command} is larger than {@link SqeSize#commandBytes()}
     */
    public boolean prepareUringCmd(int fd, int cmdOp, MemorySegment command, long userData) {
        long length = command.byteSize();
        if (length > sqeSize.commandBytes()) {
            throw new IllegalArgumentException("a " + length + "-byte URING_CMD payload does not fit in the "
                    + sqeSize.commandBytes() + " bytes of an " + sqeSize + " ring's sqe->cmd");
        }
        long at = prepareAt(Sqe.OP_URING_CMD, fd, 0, 0, 0, 0, 0, userData);
        if (at < 0) {
            return false;
        }
        MemorySegment sqes = sq.sqes();
        sqes.set(JAVA_INT, at + Sqe.CMD_OP, cmdOp);
        MemorySegment.copy(command, 0, sqes, at + Sqe.CMD, length);
        return true;
    }

    /**
     * {@code IORING_OP_TIMEOUT} of {@code nanos}, counting no completions ({@code off} 0, as liburing's
     * {@code io_uring_prep_timeout(ts, 0, 0)}): its CQE comes with -ETIME when the time has passed, or -ECANCELED
     * when the ring closes first; a wait in {@link #submitAndWait} ends then at the latest. The time is written into
     * {@code timespec} (16 bytes, a {@code struct __kernel_timespec}), which the kernel reads when it takes the SQE:
     * keep it unchanged until the next {@link #submit}. False when the SQ is full.
     */
    public boolean prepareTimeout(MemorySegment timespec, long nanos, long userData) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative timeout: " + nanos);
        }
        timespec.set(JAVA_LONG, 0, nanos / 1_000_000_000L);  // tv_sec
        timespec.set(JAVA_LONG, 8, nanos % 1_000_000_000L);  // tv_nsec
        return prepare(Sqe.OP_TIMEOUT, -1, 0, address(timespec), 1, 0, 0, userData);
    }

    /** {@code POLLIN} (poll.h): data to read, or the peer closed (POLLHUP and POLLERR always count too). */
    public static final int POLLIN = 0x0001;

    /**
     * {@code IORING_OP_POLL_ADD} of {@code events} ({@code poll32_events}, as liburing's
     * {@code io_uring_prep_poll_add}) on {@code fd}, one-shot: its CQE comes with the ready events as the result
     * once the file is ready (at once if it is ready when the kernel takes the SQE: no wake-up is lost between a
     * last look and the arming), or -ECANCELED when cancelled ({@link #prepareCancel}) or the ring closes. The
     * ring holds a reference to the file until then. False when the SQ is full.
     */
    public boolean preparePollAdd(int fd, int events, long userData) {
        return prepare(Sqe.OP_POLL_ADD, fd, 0, 0, 0, events, 0, userData);
    }

    /** {@code IORING_OP_NOP}: completes with result 0; a round trip through the ring. */
    public boolean prepareNop(long userData) {
        return prepare(Sqe.OP_NOP, -1, 0, 0, 0, 0, 0, userData);
    }

    /**
     * {@code IORING_OP_ASYNC_CANCEL} of the first in-flight request with {@code targetUserData}: its own CQE has
     * 0 (cancelled), -ENOENT (not found) or -EALREADY (running, may still complete); the target's CQE still comes.
     */
    public boolean prepareCancel(long targetUserData, long userData) {
        return prepare(Sqe.OP_ASYNC_CANCEL, -1, 0, targetUserData, 0, 0, 0, userData);
    }

    /** SQEs prepared and not yet taken by the kernel. */
    public int prepared() {
        return sq.pending();
    }

    /**
     * Whether {@link #submit()} has work for the kernel: SQEs prepared, completions in the overflow list, or
     * completion work waiting for this ring's owner (IORING_SQ_TASKRUN). One volatile read each; no system call.
     */
    public boolean needsEnter() {
        requireOpen();
        return sq.pending() > 0 || sq.completionsOverflowed() || sq.taskRunPending();
    }

    /**
     * One {@code io_uring_enter} for everything prepared (no call when nothing is prepared and no completion waits
     * in the kernel's overflow list); returns how many SQEs the kernel took. EINTR is retried; EAGAIN and EBUSY
     * (kernel out of memory for requests, CQ overflow backlog) return 0 and leave the SQEs for the next call, after
     * a {@link #reap}; other errors throw.
     */
    public int submit() throws IoUringException {
        return enter(0, 0);
    }

    /**
     * {@link #submit()} and wait until at least {@code minComplete} CQEs are in the CQ
     * ({@code IORING_ENTER_GETEVENTS}), for tests and for a blocking caller. Returns early (0) on EAGAIN/EBUSY, as
     * {@link #submit()}; a signal (EINTR) restarts the wait.
     */
    public int submitAndWait(int minComplete) throws IoUringException {
        if (minComplete < 0) {
            throw new IllegalArgumentException("minComplete < 0: " + minComplete);
        }
        return enter(minComplete, ENTER_GETEVENTS);
    }

    /** Hands every CQE now in the CQ to {@code handler}, advances the head once; returns how many. No allocation. */
    public int reap(CompletionHandler handler) {
        requireOpen();
        return cq.reap(handler);
    }

    /** Unmaps the rings and closes the ring fd (the kernel then cancels what is still in flight); idempotent. */
    @Override
    public void close() {
        if (ringFd < 0) {
            return;
        }
        int fd = ringFd;
        ringFd = -1;
        arena.close();
        Syscalls.close(fd);
    }

    private int enter(int minComplete, int flags) throws IoUringException {
        requireOpen();
        sq.publish();
        while (true) {
            int toSubmit = sq.pending();
            int enterFlags = flags;
            if (sq.completionsOverflowed() || sq.taskRunPending()) {
                // flushes the overflow list into the CQ and runs deferred completion work (cq_ring_needs_flush)
                enterFlags |= ENTER_GETEVENTS;
            }
            if (toSubmit == 0 && enterFlags == 0) {
                return 0;
            }
            long rc = Syscalls.syscall(callState, Syscalls.IO_URING_ENTER, ringFd, toSubmit, minComplete, enterFlags,
                    0, 0);
            if (rc >= 0) {
                return (int) rc;
            }
            int errno = (int) -rc;
            if (errno == Errno.EAGAIN || errno == Errno.EBUSY) {
                return 0;
            }
            if (errno != Errno.EINTR) {
                throw new IoUringException("io_uring_enter", errno);
            }
        }
    }

    private boolean prepare(byte opcode, int fd, long off, long addr, int len, int opFlags, int bufIndex,
            long userData) {
        return prepareAt(opcode, fd, off, addr, len, opFlags, bufIndex, userData) >= 0;
    }

    /**
     * Fills the next SQE as liburing's {@code io_uring_prep_rw}: every field written (and the second half of a
     * 128-byte SQE zeroed), so no stale bytes remain. Returns its offset in the SQE array, or -1 when the SQ is full.
     */
    private long prepareAt(byte opcode, int fd, long off, long addr, int len, int opFlags, int bufIndex,
            long userData) {
        long at = sq.next();
        if (at < 0) {
            return -1;
        }
        MemorySegment sqes = sq.sqes();
        byte flags = 0;
        if (isFixedFile(fd)) {
            flags = Sqe.FLAG_FIXED_FILE;
            fd &= ~FIXED_FILE_BIT;
        }
        sqes.set(JAVA_BYTE, at + Sqe.OPCODE, opcode);
        sqes.set(JAVA_BYTE, at + Sqe.FLAGS, flags);
        sqes.set(JAVA_SHORT, at + Sqe.IOPRIO, (short) 0);
        sqes.set(JAVA_INT, at + Sqe.FD, fd);
        sqes.set(JAVA_LONG, at + Sqe.OFF, off);
        sqes.set(JAVA_LONG, at + Sqe.ADDR, addr);
        sqes.set(JAVA_INT, at + Sqe.LEN, len);
        sqes.set(JAVA_INT, at + Sqe.OP_FLAGS, opFlags);
        sqes.set(JAVA_LONG, at + Sqe.USER_DATA, userData);
        sqes.set(JAVA_SHORT, at + Sqe.BUF_INDEX, (short) bufIndex);
        sqes.set(JAVA_SHORT, at + Sqe.PERSONALITY, (short) 0);
        sqes.set(JAVA_INT, at + Sqe.FILE_INDEX, 0);
        sqes.set(JAVA_LONG, at + Sqe.ADDR3, 0L);
        sqes.set(JAVA_LONG, at + Sqe.PAD2, 0L);
        for (long b = Sqe.BASE_SIZE; b < sqeSize.bytes(); b += Long.BYTES) {
            sqes.set(JAVA_LONG, at + b, 0L);
        }
        return at;
    }

    /** The SQE that the last successful prepare filled (for tests that check its bytes before the kernel does). */
    MemorySegment lastPrepared() {
        long at = sq.lastPrepared();
        return sq.sqes().asSlice(at, sqeSize.bytes());
    }

    private void requireOpen() {
        if (ringFd < 0) {
            throw new IllegalStateException("io_uring closed");
        }
    }

    /** A buffer's address: only native memory has one the kernel can use. */
    private static long address(MemorySegment buffer) {
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("not a native segment: " + buffer);
        }
        return buffer.address();
    }

    /** {@code sqe->len} is a u32; the kernel caps one transfer at MAX_RW_COUNT (2 GiB - 4 KiB) anyway. */
    private static int length(MemorySegment buffer) {
        long size = buffer.byteSize();
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("buffer larger than 2 GiB: " + size);
        }
        return (int) size;
    }
}
