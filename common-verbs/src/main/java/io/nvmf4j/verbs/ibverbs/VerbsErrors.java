package io.nvmf4j.verbs.ibverbs;

import static io.nvmf4j.uring.Errno.EADDRNOTAVAIL;
import static io.nvmf4j.uring.Errno.EAGAIN;
import static io.nvmf4j.uring.Errno.EBADF;
import static io.nvmf4j.uring.Errno.ECONNABORTED;
import static io.nvmf4j.uring.Errno.ECONNREFUSED;
import static io.nvmf4j.uring.Errno.ECONNRESET;
import static io.nvmf4j.uring.Errno.EFAULT;
import static io.nvmf4j.uring.Errno.EINVAL;
import static io.nvmf4j.uring.Errno.ENODEV;
import static io.nvmf4j.uring.Errno.ENOENT;
import static io.nvmf4j.uring.Errno.ENOMEM;
import static io.nvmf4j.uring.Errno.ENOSPC;
import static io.nvmf4j.uring.Errno.ENOSYS;
import static io.nvmf4j.uring.Errno.EOPNOTSUPP;
import static io.nvmf4j.uring.Errno.EPROTO;
import static io.nvmf4j.uring.Errno.ETIMEDOUT;

import io.nvmf4j.uring.Errno;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

/**
 * What an errno returned by a verbs or rdma_cm call means to the verbs API: its {@link VerbsErrorCode} and the
 * {@link VerbsException} to throw. The values and names are the shared {@link Errno} table's.
 */
final class VerbsErrors {

    private VerbsErrors() {
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
        return new VerbsException(code(errno), call + " failed: " + Errno.name(errno));
    }
}
