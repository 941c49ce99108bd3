package io.nvmf4j.uring;

/**
 * {@code struct io_uring_sqe} of include/uapi/linux/io_uring.h: field offsets of its first 64 bytes (a ring set up
 * with {@code IORING_SETUP_SQE128} has 128-byte SQEs whose second half only extends {@code cmd}, see
 * {@link SqeSize}) and the opcodes this package prepares.
 */
final class Sqe {
    /** The first 64 bytes, which every opcode reads; the fields below all lie inside them. */
    static final long BASE_SIZE = 64;

    static final long OPCODE = 0;      // __u8
    static final long FLAGS = 1;       // __u8 IOSQE_*
    static final long IOPRIO = 2;      // __u16
    static final long FD = 4;          // __s32
    static final long OFF = 8;         // __u64 off / addr2
    static final long CMD_OP = 8;      // __u32 cmd_op, then __u32 __pad1 (the same union as off, for URING_CMD)
    static final long ADDR = 16;       // __u64 addr
    static final long LEN = 24;        // __u32 len
    static final long OP_FLAGS = 28;   // __u32 rw_flags / fsync_flags / cancel_flags ...
    static final long USER_DATA = 32;  // __u64
    static final long BUF_INDEX = 40;  // __u16 buf_index
    static final long PERSONALITY = 42; // __u16
    static final long FILE_INDEX = 44; // __s32 splice_fd_in / file_index
    static final long ADDR3 = 48;      // __u64 addr3
    static final long PAD2 = 56;       // __u64 __pad2[1]
    static final long CMD = 48;        // __u8 cmd[0]: URING_CMD's payload, over addr3 and __pad2 and beyond

    /** {@code enum io_uring_op}. */
    static final byte OP_NOP = 0;
    static final byte OP_FSYNC = 3;
    static final byte OP_READ_FIXED = 4;
    static final byte OP_WRITE_FIXED = 5;
    static final byte OP_POLL_ADD = 6;
    static final byte OP_TIMEOUT = 11;
    static final byte OP_ASYNC_CANCEL = 14;
    static final byte OP_FALLOCATE = 17;
    static final byte OP_READ = 22;
    static final byte OP_WRITE = 23;
    /** {@code IORING_OP_URING_CMD} (5.19): {@code cmd_op} and {@code cmd} go to the file's {@code uring_cmd}. */
    static final byte OP_URING_CMD = 46;

    /** {@code IOSQE_FIXED_FILE}: {@code fd} is an index into the ring's registered file table. */
    static final byte FLAG_FIXED_FILE = 1;

    /** {@code IORING_FSYNC_DATASYNC}: fdatasync(2) rather than fsync(2). */
    static final int FSYNC_DATASYNC = 1;

    private Sqe() {
    }
}
