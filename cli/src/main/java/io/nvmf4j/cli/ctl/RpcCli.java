package io.nvmf4j.cli.ctl;

import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code nvmf4j rpc METHOD [--param k=v ...]}: one raw JSON-RPC call, result printed as JSON (SPDK rpc.py). */
@Command(name = "rpc", mixinStandardHelpOptions = true,
        description = {"Call a method on a running nvmf4j serve (JSON-RPC over its Unix socket).",
            "  nvmf4j rpc rpc_get_methods",
            "  nvmf4j rpc nvmf_subsystem_add_ns --param nqn=nqn.2026-12.io.nvmf4j:disk \\",
            "      --param path=/srv/b.img"})
public final class RpcCli implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "METHOD")
    String method;

    @Option(names = {"--param", "-p"}, paramLabel = "KEY=VALUE", description = "a named parameter (repeatable)")
    List<String> params = List.of();

    @Mixin
    SocketOption socket = new SocketOption();

    private final PrintStream out;
    private final PrintStream err;

    public RpcCli() {
        this(System.out, System.err);
    }

    RpcCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        Map<String, String> named = new LinkedHashMap<>();
        for (String p : params) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                err.println("nvmf4j rpc: --param " + p + ": expected KEY=VALUE");
                return 2;
            }
            named.put(p.substring(0, eq), p.substring(eq + 1));
        }
        return Ctl.run("rpc", out, err, socket, method, named, null);
    }
}
