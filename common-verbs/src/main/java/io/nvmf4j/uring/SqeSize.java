package io.nvmf4j.uring;

/**
 * The size of a ring's SQEs, fixed when it is set up: the 64-byte {@code struct io_uring_sqe}, or twice that with
 * {@code IORING_SETUP_SQE128} (5.19), whose second half extends the command area of {@code IORING_OP_URING_CMD}
 * ({@code sqe->cmd}, from byte 48) from 16 to 80 bytes. ublk's control and I/O commands
 * ({@code struct ublksrv_ctrl_cmd}, 32 bytes) need the larger form (ublksrv and SPDK's ublk set up their control
 * ring with SQE128); every other opcode reads only the first 64 bytes.
 */
public enum SqeSize {
    /** {@code struct io_uring_sqe}: 64 bytes, 16 bytes of {@code sqe->cmd}. */
    SQE64(64, 0),
    /** {@code IORING_SETUP_SQE128}: 128 bytes, 80 bytes of {@code sqe->cmd}. */
    SQE128(128, 1 << 10);

    private final int bytes;
    private final int setupFlag;

    SqeSize(int bytes, int setupFlag) {
        this.bytes = bytes;
        this.setupFlag = setupFlag;
    }

    /** Bytes per SQE: the stride of the mapped SQE array. */
    public int bytes() {
        return bytes;
    }

    /** Bytes of {@code sqe->cmd} (from byte {@code 48} to the end of the SQE) a URING_CMD may carry. */
    public int commandBytes() {
        return bytes - (int) Sqe.CMD;
    }

    /** The {@code IORING_SETUP_*} flag that asks for this size (0 for the default). */
    int setupFlag() {
        return setupFlag;
    }
}
