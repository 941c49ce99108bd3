package io.nvmf4j.cli.mount;

/**
 * The Linux errno values (asm-generic/errno-base.h, errno.h) the mounts answer the kernel with: the FUSE file
 * system's replies and the ublk queues' results, and what their failures report.
 */
public final class Errno {

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EBUSY = 16;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;
    public static final int EBADE = 52;
    public static final int ENODATA = 61;
    public static final int EOPNOTSUPP = 95;
    public static final int ETIMEDOUT = 110;
    public static final int EREMOTEIO = 121;

    private Errno() {
    }
}
