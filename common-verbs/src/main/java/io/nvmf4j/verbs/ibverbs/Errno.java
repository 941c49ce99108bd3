package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

/** Linux errno values the verbs and rdma_cm calls return, with their names and {@link VerbsErrorCode}s. */
final class Errno {
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EFAULT = 14;
    static final int EBUSY = 16;
    static final int EEXIST = 17;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int ENOSYS = 38;
    static final int EPROTO = 71;
    static final int EOPNOTSUPP = 95;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ENETUNREACH = 101;
    static final int ECONNABORTED = 103;
    static final int ECONNRESET = 104;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;

    private Errno() {
    }

    /** The symbolic name, e.g. {@code "ENODEV"}, or {@code "errno 123"}. */
    static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOSPC -> "ENOSPC";
            case ENOSYS -> "ENOSYS";
            case EPROTO -> "EPROTO";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ENETUNREACH -> "ENETUNREACH";
            case ECONNABORTED -> "ECONNABORTED";
            case ECONNRESET -> "ECONNRESET";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ECONNREFUSED -> "ECONNREFUSED";
            case EHOSTUNREACH -> "EHOSTUNREACH";
            default -> "errno " + errno;
        };
    }

    /** The API's error code for an errno returned by a verbs or rdma_cm call. */
    static VerbsErrorCode code(int errno) {
        return switch (errno) {
            case ENOMEM -> VerbsErrorCode.QUEUE_FULL;
            case EINVAL, EFAULT, EOPNOTSUPP -> VerbsErrorCode.INVALID_ARGUMENT;
            case EBADF -> VerbsErrorCode.CLOSED;
            case ETIMEDOUT -> VerbsErrorCode.TIMED_OUT;
            case ECONNREFUSED -> VerbsErrorCode.CONNECTION_REFUSED;
            case ECONNRESET, ECONNABORTED -> VerbsErrorCode.CONNECTION_RESET;
            case EPROTO -> VerbsErrorCode.PROTOCOL_ERROR;
            case ENOSPC, EAGAIN -> VerbsErrorCode.NO_RESOURCES;
            case ENODEV, ENOENT, ENOSYS, EADDRNOTAVAIL -> VerbsErrorCode.NO_DEVICE;
            default -> VerbsErrorCode.IO_ERROR;
        };
    }

    /** An exception for {@code call} having failed with {@code errno}. */
    static VerbsException exception(String call, int errno) {
        return new VerbsException(code(errno), call + " failed: " + name(errno));
    }
}
