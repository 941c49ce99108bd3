package io.nvmf4j.target.backend;

/**
 * The operations a namespace backend runs asynchronously (NVM Command Set 1.0: Read, Write, Flush, Write Zeroes,
 * Dataset Management with Deallocate). Linux nvmet submits the same set as bios or kiocbs
 * ({@code nvmet_bdev_execute_rw()}, {@code nvmet_file_execute_rw()}, ..._flush(), ..._write_zeroes(), ..._discard()).
 */
public enum BackendOp {
    /** Read the buffer's length from the offset. */
    READ,
    /** Write the buffer at the offset. */
    WRITE,
    /** Write with Force Unit Access: stable when it completes (nvmet: IOCB_DSYNC / REQ_FUA; io_uring RWF_DSYNC). */
    WRITE_FUA,
    /** Make every completed write durable (nvmet: vfs_fsync() / an empty REQ_PREFLUSH bio). */
    FLUSH,
    /** Zero a byte range (fallocate ZERO_RANGE, BLKZEROOUT). */
    WRITE_ZEROES,
    /** Release a byte range, which then reads back as zeroes (fallocate PUNCH_HOLE, BLKDISCARD). */
    DEALLOCATE;

    /** True for the operations that write a buffer to the backend. */
    public boolean writesData() {
        return this == WRITE || this == WRITE_FUA;
    }

    /** True for the operations that move bytes through a buffer. */
    public boolean movesData() {
        return this == READ || this == WRITE || this == WRITE_FUA;
    }
}
