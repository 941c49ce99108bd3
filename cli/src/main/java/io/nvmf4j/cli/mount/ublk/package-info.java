/**
 * The ublk user-space block device protocol (Linux 6.0+, {@code drivers/block/ublk_drv.c}), as its UAPI header
 * {@code include/uapi/linux/ublk_cmd.h} defines it: the control commands a server sends to
 * {@code /dev/ublk-control} and the per-queue I/O commands it sends to {@code /dev/ublkcN}, both as io_uring
 * {@code IORING_OP_URING_CMD}s ({@link io.nvmf4j.uring.IoUring#prepareUringCmd}, control ring with 128-byte SQEs),
 * and the structures they carry. Byte layouts are checked against the system's header by {@code UblkLayoutTest}.
 *
 * <p>The flow a server follows (ublksrv, SPDK's {@code lib/ublk}): ADD_DEV with a {@link DeviceInfo} (queues,
 * depth, largest I/O, {@code UBLK_F_*} features), SET_PARAMS with {@link DeviceParams}, then per queue: open
 * {@code /dev/ublkcN}, map its I/O descriptors read-only ({@link IoDescriptor#mapOffset}), and send one
 * FETCH_REQ per tag; START_DEV from another thread once every queue has fetched (the kernel waits in it for
 * those fetches); each request then arrives as the completion of its tag's FETCH_REQ or COMMIT_AND_FETCH_REQ, and
 * is answered with COMMIT_AND_FETCH_REQ carrying the result.
 */
package io.nvmf4j.cli.mount.ublk;
