/**
 * A raw Linux io_uring ring for the JVM: {@link io.nvmf4j.uring.IoUring} sets a ring up, maps its submission and
 * completion queues, fills SQEs for the file operations a block backend needs (read, write, their fixed-buffer
 * variants, fsync, fallocate, cancel) and for a driver's own commands ({@code IORING_OP_URING_CMD}, in 64- or
 * 128-byte SQEs: {@link io.nvmf4j.uring.SqeSize}, what a ublk server speaks) and reaps CQEs into a {@link io.nvmf4j.uring.CompletionHandler}.
 *
 * <p>It calls the three system calls ({@code io_uring_setup}, {@code io_uring_enter}, {@code io_uring_register})
 * through libc's {@code syscall(2)} and {@code mmap(2)} with FFM, not liburing: liburing's submission and
 * completion API ({@code io_uring_get_sqe}, {@code io_uring_prep_*}, {@code io_uring_peek_cqe}, ...) is made of
 * {@code static inline} functions in its header, so there is nothing in the shared library for FFM or jextract to
 * bind, and what those functions do is small: write a 64- or 128-byte {@code struct io_uring_sqe}, publish a tail, read a
 * 16-byte {@code struct io_uring_cqe}, advance a head. That ring protocol and the structures of
 * {@code include/uapi/linux/io_uring.h} are stable kernel ABI, so mirroring them here costs no more than a binding.
 *
 * <p>A ring is single-threaded: one owner thread prepares, submits and reaps (the ring is not locked; it may be
 * handed from one thread to another with a happens-before edge between them).
 */
package io.nvmf4j.uring;
