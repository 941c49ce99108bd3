package io.nvmf4j.cli;

import io.nvmf4j.verbs.ProviderUnavailableException;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.cli.rping.RpingClient;
import io.nvmf4j.cli.rping.RpingOptions;
import io.nvmf4j.cli.rping.RpingPattern;
import io.nvmf4j.cli.rping.RpingResult;
import io.nvmf4j.cli.rping.RpingServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j rping}: rdma-core's rping over nvmf4j's verbs, with rping's flags, so that it pings a
 * Linux {@code rping} (over siw, rxe or a NIC) from either side. Exit status 0 when every ping
 * completed (and, with -V, every byte matched), 1 otherwise.
 */
@Command(
        name = "rping",
        sortOptions = false,
        description = {
            "RDMA ping, wire-compatible with rdma-core's rping: Send/Receive, RDMA Read and RDMA Write.",
            "Server: nvmf4j rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]",
            "Client: nvmf4j rping -c [-vVd] [-S size] [-C count] -a addr [-p port]"
        })
public final class RpingCli implements Callable<Integer> {

    static final class Side {
        @Option(names = "-s", required = true, description = "server side")
        boolean server;

        @Option(names = "-c", required = true, description = "client side")
        boolean client;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Side side;

    @Option(names = "-a", paramLabel = "addr",
            description = "address: the server's to connect to (client), to listen on (server; default 127.0.0.1, "
                    + "where rping binds to every address: give -a 0.0.0.0 for that)")
    String address;

    @Option(names = "-p", paramLabel = "port", description = "port (default ${DEFAULT-VALUE})")
    int port = RpingOptions.DEFAULT_PORT;

    @Option(names = "-C", paramLabel = "count",
            description = "ping count times (default 0: client until interrupted, server until the client leaves; "
                    + "a server given -C fails when the client did not do exactly that many)")
    int count;

    @Option(names = "-S", paramLabel = "size", description = "ping data size, " + RpingPattern.MIN_SIZE + " to "
            + RpingPattern.MAX_SIZE + " (default ${DEFAULT-VALUE})")
    int size = RpingPattern.DEFAULT_SIZE;

    @Option(names = "-v", description = "display ping data to stdout")
    boolean verbose;

    @Option(names = "-V", description = "validate ping data (server: also check what it read against rping's pattern)")
    boolean validate;

    @Option(names = "-d", description = "debug printfs")
    boolean debug;

    @Option(names = "--provider", paramLabel = "name",
            description = "RDMA provider (softiwarp, ibverbs); default: the first one present")
    String provider;

    @Option(names = "--timeout", paramLabel = "seconds",
            description = "limit for each wait: connecting, a client to come, every completion (default ${DEFAULT-VALUE})")
    long timeoutSeconds = 60;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help")
    boolean help;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String host = address != null ? address : (side.server ? "127.0.0.1" : null);
        if (host == null) {
            err.println("rping: the client needs the server's address (-a addr)");
            return 2;
        }
        RpingOptions options;
        try {
            options = new RpingOptions(new InetSocketAddress(host, port), count, size, verbose, validate, debug,
                    provider, Duration.ofSeconds(timeoutSeconds));
        } catch (IllegalArgumentException e) {
            err.println("rping: " + e.getMessage());
            return 2;
        }
        if (options.address().isUnresolved()) {
            err.println("rping: cannot resolve " + host);
            return 2;
        }
        try {
            RdmaProvider rdma = provider != null ? RdmaProviders.byName(provider) : RdmaProviders.auto();
            try (RdmaDevice device = rdma.openDevice(null)) {
                String role = side.server ? "server" : "client";
                RpingResult result = side.server
                        ? new RpingServer(options, out::println).run(device, bound -> {
                            out.println("rping server listening on " + bound.getAddress().getHostAddress() + ":"
                                    + bound.getPort() + " (" + rdma.name() + "/" + device.name() + ")");
                            out.flush();
                        })
                        : new RpingClient(options, out::println).run(device);
                out.println("rping " + role + ": " + result.summary());
                out.flush();
                return 0;
            }
        } catch (ProviderUnavailableException e) {
            err.println("rping: " + e.getMessage());
            return 1;
        } catch (VerbsException e) {
            err.println("rping: " + e.getMessage() + " (" + e.code() + ")");
            return 1;
        } catch (IOException e) {
            err.println("rping " + (side.server ? "server" : "client") + " failed: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("rping: interrupted");
            return 1;
        }
    }
}
