package io.nvmf4j.uring;

/**
 * The Linux errno values the ring calls return (include/uapi/asm-generic/errno-base.h and errno.h), with names and
 * the glibc strerror texts, kept in Java so an exception message needs no native call.
 */
final class Errno {
    static final int EPERM = 1;
    static final int EINTR = 4;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EBUSY = 16;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;

    private Errno() {
    }

    /** {@code "EPERM (Operation not permitted)"}, or {@code "errno 123"} for one not listed. */
    static String describe(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM (Operation not permitted)";
            case 2 -> "ENOENT (No such file or directory)";
            case EINTR -> "EINTR (Interrupted system call)";
            case 5 -> "EIO (Input/output error)";
            case 6 -> "ENXIO (No such device or address)";
            case EBADF -> "EBADF (Bad file descriptor)";
            case EAGAIN -> "EAGAIN (Resource temporarily unavailable)";
            case ENOMEM -> "ENOMEM (Cannot allocate memory)";
            case 13 -> "EACCES (Permission denied)";
            case 14 -> "EFAULT (Bad address)";
            case EBUSY -> "EBUSY (Device or resource busy)";
            case 17 -> "EEXIST (File exists)";
            case 19 -> "ENODEV (No such device)";
            case EINVAL -> "EINVAL (Invalid argument)";
            case 23 -> "ENFILE (Too many open files in system)";
            case 24 -> "EMFILE (Too many open files)";
            case 27 -> "EFBIG (File too large)";
            case 28 -> "ENOSPC (No space left on device)";
            case ENOSYS -> "ENOSYS (Function not implemented)";
            case 62 -> "ETIME (Timer expired)";
            case 75 -> "EOVERFLOW (Value too large for defined data type)";
            case 95 -> "EOPNOTSUPP (Operation not supported)";
            case 114 -> "EALREADY (Operation already in progress)";
            case 125 -> "ECANCELED (Operation canceled)";
            default -> "errno " + errno;
        };
    }
}
