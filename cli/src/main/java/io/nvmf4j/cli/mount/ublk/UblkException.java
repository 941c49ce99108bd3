package io.nvmf4j.cli.mount.ublk;

import io.nvmf4j.uring.Errno;
import java.io.IOException;

/** A ublk command or system call that failed, with the errno the kernel gave and what was being done. */
public final class UblkException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public UblkException(String what, int errno) {
        super(what + " failed: " + Errno.name(errno) + (hint(errno).isEmpty() ? "" : " (" + hint(errno) + ")"));
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }

    private static String hint(int errno) {
        return switch (errno) {
            case Errno.ENOENT -> "is the ublk_drv module loaded? modprobe ublk_drv";
            case Errno.EPERM, Errno.EACCES -> "ublk devices need root (CAP_SYS_ADMIN)";
            default -> "";
        };
    }
}
