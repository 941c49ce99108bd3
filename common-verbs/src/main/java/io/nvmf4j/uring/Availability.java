package io.nvmf4j.uring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Why {@link IoUring#unavailableReason()} finds no ring on this host: the sysctl first, then a real setup. */
final class Availability {
    /** kernel/io_uring.c's {@code sysctl_io_uring_disabled} (Linux 6.6+; absent before, which means 0). */
    static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");

    private Availability() {
    }

    /**
     * {@code kernel.io_uring_disabled}: 0 (allowed), 1 (only for {@code kernel.io_uring_group} and CAP_SYS_ADMIN),
     * 2 (off for everyone); 0 when the file is absent, -1 when it cannot be read.
     */
    static int disabledSysctl() {
        try {
            return Integer.parseInt(Files.readString(DISABLED_SYSCTL).strip());
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException | NumberFormatException | SecurityException e) {
            return -1;
        }
    }

    static String reason() {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return "io_uring is a Linux interface; this is " + System.getProperty("os.name");
        }
        int disabled = disabledSysctl();
        if (disabled == 2) {
            return "io_uring is disabled on this host (sysctl kernel.io_uring_disabled = 2)";
        }
        try (IoUring _ = IoUring.open(2)) {
            return null;
        } catch (IoUringException e) {
            return switch (e.errno()) {
                case Errno.ENOSYS -> "the kernel has no io_uring (" + e.getMessage() + ")";
                case Errno.EPERM -> disabled == 1
                        ? "io_uring is restricted to kernel.io_uring_group (sysctl kernel.io_uring_disabled = 1)"
                                + " and this process is not in it (" + e.getMessage() + ")"
                        : "io_uring is refused to this process, by a seccomp filter or container policy ("
                                + e.getMessage() + ")";
                default -> "a 2-entry ring cannot be set up: " + e.getMessage();
            };
        } catch (RuntimeException | LinkageError e) {
            // e.g. native access denied to this module (--illegal-native-access=deny), or no syscall in libc
            return "libc's syscall(2) cannot be called through FFM here: " + e;
        }
    }
}
