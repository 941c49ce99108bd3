package io.nvmf4j.uring;

/**
 * The Linux errno values nvmf4j's native calls meet (include/uapi/asm-generic/errno-base.h and errno.h), with their
 * names and the glibc strerror texts, kept in Java so a failure message needs no native call. One table for every
 * user: the ring's results here, the ibverbs provider's verbs and rdma_cm calls, and the cli's FUSE replies and ublk
 * queue results. It lives in this exported package because a negated errno is what every io_uring completion and
 * system call returns on failure.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;
    public static final int EBADE = 52;
    public static final int ENODATA = 61;
    public static final int ETIME = 62;
    public static final int EPROTO = 71;
    public static final int EOVERFLOW = 75;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EREMOTEIO = 121;
    public static final int ECANCELED = 125;

    private Errno() {
    }

    /** The symbolic name, e.g. {@code "ENODEV"}, or {@code "errno 123"} for one not listed. */
    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case ENXIO -> "ENXIO";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case ENOTDIR -> "ENOTDIR";
            case EISDIR -> "EISDIR";
            case EINVAL -> "EINVAL";
            case ENFILE -> "ENFILE";
            case EMFILE -> "EMFILE";
            case EFBIG -> "EFBIG";
            case ENOSPC -> "ENOSPC";
            case ENOSYS -> "ENOSYS";
            case EBADE -> "EBADE";
            case ENODATA -> "ENODATA";
            case ETIME -> "ETIME";
            case EPROTO -> "EPROTO";
            case EOVERFLOW -> "EOVERFLOW";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ENETUNREACH -> "ENETUNREACH";
            case ECONNABORTED -> "ECONNABORTED";
            case ECONNRESET -> "ECONNRESET";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ECONNREFUSED -> "ECONNREFUSED";
            case EHOSTUNREACH -> "EHOSTUNREACH";
            case EALREADY -> "EALREADY";
            case EREMOTEIO -> "EREMOTEIO";
            case ECANCELED -> "ECANCELED";
            default -> "errno " + errno;
        };
    }

    /** {@code "EPERM (Operation not permitted)"}, or {@code "errno 123"} for one not listed. */
    public static String describe(int errno) {
        String text = strerror(errno);
        return text == null ? name(errno) : name(errno) + " (" + text + ")";
    }

    /** glibc's {@code strerror} text, or null for an errno not listed. */
    private static String strerror(int errno) {
        return switch (errno) {
            case EPERM -> "Operation not permitted";
            case ENOENT -> "No such file or directory";
            case EINTR -> "Interrupted system call";
            case EIO -> "Input/output error";
            case ENXIO -> "No such device or address";
            case EBADF -> "Bad file descriptor";
            case EAGAIN -> "Resource temporarily unavailable";
            case ENOMEM -> "Cannot allocate memory";
            case EACCES -> "Permission denied";
            case EFAULT -> "Bad address";
            case EBUSY -> "Device or resource busy";
            case EEXIST -> "File exists";
            case ENODEV -> "No such device";
            case ENOTDIR -> "Not a directory";
            case EISDIR -> "Is a directory";
            case EINVAL -> "Invalid argument";
            case ENFILE -> "Too many open files in system";
            case EMFILE -> "Too many open files";
            case EFBIG -> "File too large";
            case ENOSPC -> "No space left on device";
            case ENOSYS -> "Function not implemented";
            case EBADE -> "Invalid exchange";
            case ENODATA -> "No data available";
            case ETIME -> "Timer expired";
            case EPROTO -> "Protocol error";
            case EOVERFLOW -> "Value too large for defined data type";
            case EOPNOTSUPP -> "Operation not supported";
            case EADDRINUSE -> "Address already in use";
            case EADDRNOTAVAIL -> "Cannot assign requested address";
            case ENETUNREACH -> "Network is unreachable";
            case ECONNABORTED -> "Software caused connection abort";
            case ECONNRESET -> "Connection reset by peer";
            case ETIMEDOUT -> "Connection timed out";
            case ECONNREFUSED -> "Connection refused";
            case EHOSTUNREACH -> "No route to host";
            case EALREADY -> "Operation already in progress";
            case EREMOTEIO -> "Remote I/O error";
            case ECANCELED -> "Operation canceled";
            default -> null;
        };
    }
}
