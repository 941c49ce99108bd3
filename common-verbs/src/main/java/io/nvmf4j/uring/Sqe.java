package io.nvmf4j.uring;

/**
 * {@code struct io_uring_sqe} of include/uapi/linux/io_uring.h (the 64-byte form; this ring does not ask for
 * {@code IORING_SETUP_SQE128}): field offsets and the opcodes this package prepares.
 */
final class Sqe {
    static final long SIZE = 64;

    static final long OPCODE = 0;      // __u8
    static final long FLAGS = 1;       // __u8 IOSQE_*
    static final long IOPRIO = 2;      // __u16
    static final long FD = 4;          // __s32
    static final long OFF = 8;         // __u64 off / addr2
    static final long ADDR = 16;       // __u64 addr
    static final long LEN = 24;        // __u32 len
    static final long OP_FLAGS = 28;   // __u32 rw_flags / fsync_flags / cancel_flags ...
    static final long USER_DATA = 32;  // __u64
    static final long BUF_INDEX = 40;  // __u16 buf_index
    static final long PERSONALITY = 42; // __u16
    static final long FILE_INDEX = 44; // __s32 splice_fd_in / file_index
    static final long ADDR3 = 48;      // __u64 addr3
    static final long PAD2 = 56;       // __u64 __pad2[1]

    /** {@code enum io_uring_op}. */
    static final byte OP_NOP = 0;
    static final byte OP_FSYNC = 3;
    static final byte OP_READ_FIXED = 4;
    static final byte OP_WRITE_FIXED = 5;
    static final byte OP_ASYNC_CANCEL = 14;
    static final byte OP_FALLOCATE = 17;
    static final byte OP_READ = 22;
    static final byte OP_WRITE = 23;

    /** {@code IOSQE_FIXED_FILE}: {@code fd} is an index into the ring's registered file table. */
    static final byte FLAG_FIXED_FILE = 1;

    /** {@code IORING_FSYNC_DATASYNC}: fdatasync(2) rather than fsync(2). */
    static final int FSYNC_DATASYNC = 1;

    private Sqe() {
    }
}
