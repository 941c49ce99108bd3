package io.nvmf4j.cli.mount.ublk;

import java.io.IOException;

/** A ublk command or system call that failed, with the errno the kernel gave and what was being done. */
public final class UblkException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public UblkException(String what, int errno) {
        super(what + " failed: " + name(errno) + (hint(errno).isEmpty() ? "" : " (" + hint(errno) + ")"));
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }

    static String name(int errno) {
        return switch (errno) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 4 -> "EINTR";
            case 12 -> "ENOMEM";
            case 13 -> "EACCES";
            case 16 -> "EBUSY";
            case 17 -> "EEXIST";
            case 19 -> "ENODEV";
            case 22 -> "EINVAL";
            case 95 -> "EOPNOTSUPP";
            default -> "errno " + errno;
        };
    }

    private static String hint(int errno) {
        return switch (errno) {
            case 2 -> "is the ublk_drv module loaded? modprobe ublk_drv";
            case 1, 13 -> "ublk devices need root (CAP_SYS_ADMIN)";
            default -> "";
        };
    }
}
