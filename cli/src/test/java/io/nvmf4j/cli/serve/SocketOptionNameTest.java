package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** serve names its management socket as ctl and rpc do: --rpc-socket (its own) and --socket (theirs). */
class SocketOptionNameTest {

    @Test
    void serveTakesTheSocketUnderCtlsNameAsWellAsItsOwn() {
        for (String name : new String[] {"--rpc-socket", "--socket"}) {
            ServeCli serve = new ServeCli();
            new CommandLine(serve).parseArgs("--ram", "1M", name, "/tmp/x.sock");
            assertEquals(Path.of("/tmp/x.sock"), serve.rpcSocket, name);
        }
    }
}
