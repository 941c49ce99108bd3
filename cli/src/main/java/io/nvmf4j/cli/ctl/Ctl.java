package io.nvmf4j.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;
import java.util.function.Consumer;

/** Runs one call for {@code rpc} and {@code ctl}: result to out (JSON, or the text a ctl command makes), errors to err. */
final class Ctl {

    private Ctl() {
    }

    /**
     * Exit 0 on a result, 1 on a JSON-RPC error, an unreachable daemon or one that did not answer in time. Where the
     * socket was not named, the daemon that answered is (pid, --config) on err first: with several daemons on a
     * machine, the default socket belongs to whichever started first.
     */
    static int run(String command, PrintStream out, PrintStream err, SocketOption socket, String method,
                   Map<String, ?> params, Consumer<JsonNode> print) {
        try {
            RpcClient.Answer answer = RpcClient.call(socket.path(), socket.timeout(), method, params,
                    !socket.explicit());
            if (!socket.explicit() && answer.daemon() != null) {
                err.println("nvmf4j " + command + ": " + answer.daemon().describe() + " on " + socket.path());
            }
            if (print != null) {
                print.accept(answer.result());
            } else {
                out.println(RpcClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answer.result()));
            }
            return 0;
        } catch (RpcClient.RpcFailure e) {
            err.println("nvmf4j: " + method + ": " + e.getMessage() + " (error " + e.code() + ")");
            return 1;
        } catch (IOException | IllegalArgumentException e) {
            err.println("nvmf4j: " + e.getMessage());
            return 1;
        }
    }
}
