package io.nvmf4j.cli.mount.fuse;

/** The Linux errno values (asm-generic/errno-base.h, errno.h) the file system replies with. */
public final class Errno {

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EBUSY = 16;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;
    public static final int EOPNOTSUPP = 95;

    private Errno() {
    }
}
