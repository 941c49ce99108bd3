package io.nvmf4j.cli.ctl;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/**
 * {@code --rpc-socket PATH}: where the daemon's management socket is, under the name {@code serve} gives it;
 * {@code -s} and {@code --socket}, this option's first names, still work (scripts use them), and serve takes
 * {@code --socket} too. {@code --timeout}: how long to wait for the daemon's answer.
 */
public final class SocketOption {

    @Option(names = {"-s", "--rpc-socket", "--socket"}, paramLabel = "PATH",
            scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "the daemon's management socket, as serve's --rpc-socket (default "
                    + "/run/nvmf4j/nvmf4j.sock if it exists, else $XDG_RUNTIME_DIR/nvmf4j/nvmf4j.sock; without it, "
                    + "the daemon reached is named on stderr)")
    Path socket;

    @Option(names = "--timeout", paramLabel = "SECONDS", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "give up on a daemon that has not answered after SECONDS (default 60, as SPDK's rpc.py)")
    double timeoutSeconds = RpcClient.DEFAULT_TIMEOUT.toSeconds();

    /** Where the socket is when --socket is not given (tests point it elsewhere). */
    Supplier<Path> defaults = SocketPaths::forClient;

    Path path() {
        return socket != null ? socket : defaults.get();
    }

    /** Whether the user named the socket: if not, which daemon answered is worth saying. */
    boolean explicit() {
        return socket != null;
    }

    Duration timeout() {
        if (!(timeoutSeconds > 0) || timeoutSeconds > 86_400) {
            throw new IllegalArgumentException("--timeout must be between 0 and 86400 seconds, got "
                    + timeoutSeconds);
        }
        return Duration.ofNanos((long) (timeoutSeconds * 1e9));
    }
}
