package io.nvmf4j.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;

/** Runs one call for {@code rpc} and {@code ctl}: result to out (JSON, or the text a ctl command makes), errors to err. */
final class Ctl {

    private Ctl() {
    }

    /** Exit 0 on a result, 1 on a JSON-RPC error or an unreachable daemon. */
    static int run(PrintStream out, PrintStream err, Path socket, String method, Map<String, ?> params,
                   Consumer<JsonNode> print) {
        try {
            JsonNode result = RpcClient.call(socket, method, params);
            if (print != null) {
                print.accept(result);
            } else {
                out.println(RpcClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result));
            }
            return 0;
        } catch (RpcClient.RpcFailure e) {
            err.println("nvmf4j: " + method + ": " + e.getMessage() + " (error " + e.code() + ")");
            return 1;
        } catch (IOException e) {
            err.println("nvmf4j: " + e.getMessage());
            return 1;
        }
    }
}
