package io.nvmf4j.cli.ctl;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the management socket is by default: {@code /run/nvmf4j/nvmf4j.sock} for the system service (systemd's
 * RuntimeDirectory) or root; for a user without write access to /run, {@code $XDG_RUNTIME_DIR/nvmf4j/nvmf4j.sock}
 * (else {@code /tmp/nvmf4j-USER/}), so {@code nvmf4j serve} as a user still has its socket and {@code ctl} finds it.
 */
public final class SocketPaths {

    public static final Path SYSTEM = Path.of("/run/nvmf4j/nvmf4j.sock");

    private SocketPaths() {
    }

    static Path user() {
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg, "nvmf4j", "nvmf4j.sock")
                : Path.of(System.getProperty("java.io.tmpdir"), "nvmf4j-" + System.getProperty("user.name"),
                "nvmf4j.sock");
    }

    /** For the daemon: the system path when it may create it there, else the user's. */
    public static Path forServer() {
        Path dir = SYSTEM.getParent();
        boolean usable = Files.isDirectory(dir) ? Files.isWritable(dir) : Files.isWritable(dir.getParent());
        return usable ? SYSTEM : user();
    }

    /** For a client: the system socket when there is one, else the user's. */
    public static Path forClient() {
        return Files.exists(SYSTEM) ? SYSTEM : user();
    }
}
