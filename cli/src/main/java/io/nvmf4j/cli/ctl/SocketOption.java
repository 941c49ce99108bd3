package io.nvmf4j.cli.ctl;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --rpc-socket PATH}: where the daemon's management socket is, under the name {@code serve} gives it;
 * {@code -s} and {@code --socket}, this option's first names, still work (scripts use them), and serve takes
 * {@code --socket} too.
 */
public final class SocketOption {

    @Option(names = {"-s", "--rpc-socket", "--socket"}, paramLabel = "PATH",
            scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "the daemon's management socket, as serve's --rpc-socket (default "
                    + "/run/nvmf4j/nvmf4j.sock if it exists, else $XDG_RUNTIME_DIR/nvmf4j/nvmf4j.sock)")
    Path socket;

    Path path() {
        return socket != null ? socket : SocketPaths.forClient();
    }
}
