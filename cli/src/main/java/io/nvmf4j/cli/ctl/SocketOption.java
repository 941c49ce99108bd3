package io.nvmf4j.cli.ctl;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --socket PATH}: where the daemon's management socket is (serve's --rpc-socket). */
public final class SocketOption {

    @Option(names = {"--socket", "-s"}, paramLabel = "PATH", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "the daemon's management socket (default /run/nvmf4j/nvmf4j.sock if it exists, else "
                    + "$XDG_RUNTIME_DIR/nvmf4j/nvmf4j.sock)")
    Path socket;

    Path path() {
        return socket != null ? socket : SocketPaths.forClient();
    }
}
