package io.nvmf4j.uring;

/**
 * {@code struct io_uring_cqe} of include/uapi/linux/io_uring.h (the 16-byte form; no {@code IORING_SETUP_CQE32}).
 */
final class Cqe {
    static final long SIZE = 16;

    static final long USER_DATA = 0; // __u64
    static final long RES = 8;       // __s32
    static final long FLAGS = 12;    // __u32 IORING_CQE_F_*

    private Cqe() {
    }
}
