package io.nvmf4j.cli;

import io.nvmf4j.cli.demo.EmbeddedTarget;
import io.nvmf4j.cli.serve.RpcServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The training run of the CLI's one class-data archive: {@code bin/nvmf4j} runs this class once per jar build with
 * {@code -XX:ArchiveClassesAtExit}, and every short command then maps its classes from that archive instead of
 * loading and verifying them from the jar. One JVM runs the paths those commands take (help and version, a
 * discover, an identify and a log page against a target of its own, a ctl call), so one archive serves them all:
 * one per subcommand, written by each one's first run, came to 5 MB apiece.
 *
 * <p>Not a subcommand: nothing a user runs. Output goes nowhere; a step that fails still leaves its classes loaded.
 */
public final class StartupTraining {

    /** What bin/nvmf4j runs with the default JVM options (the long-running ones do not use the archive). */
    static final Set<String> LONG_RUNNING = Set.of("serve", "perf", "mount", "demo", "rping");

    private StartupTraining() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream(), true);
        System.setOut(nowhere); // before anything logs: the log handler takes System.err when it is made
        System.setErr(nowhere);
        run("--version");
        run("--help");
        for (String name : Nvmf4j.SUBCOMMANDS.keySet()) {
            if (!LONG_RUNNING.contains(name)) {
                run(name, "--help");
            }
        }
        run("gen-hostnqn");
        run("show-hostnqn");
        try (EmbeddedTarget target = EmbeddedTarget.start(1 << 20, 512, "softiwarp", 0, 1)) {
            String port = Integer.toString(target.address().getPort());
            for (List<String> command : List.of(
                    List.of("discover", "-a", "127.0.0.1", "-s", port),
                    List.of("discover", "-a", "127.0.0.1", "-s", port, "-o", "json"),
                    List.of("id-ctrl", "--traddr", "127.0.0.1", "--trsvcid", port),
                    List.of("id-ns", "--traddr", "127.0.0.1", "--trsvcid", port, "-n", "1"),
                    List.of("smart-log", "--traddr", "127.0.0.1", "--trsvcid", port),
                    List.of("list-subsys", "--traddr", "127.0.0.1", "--trsvcid", port))) {
                List<String> withProvider = new java.util.ArrayList<>(command);
                withProvider.addAll(List.of("--provider", "softiwarp"));
                run(withProvider.toArray(String[]::new));
            }
        } catch (IOException | RuntimeException e) {
            // no target here (no loopback, a seccomp profile): the commands' own classes are loaded already
        }
        Path dir = Files.createTempDirectory("nvmf4j-training");
        Path socket = dir.resolve("rpc.sock");
        try (RpcServer _ = RpcServer.start(socket, (method, params) -> switch (method) {
            case "nvmf4j_get_daemon" -> Map.of("pid", ProcessHandle.current().pid());
            default -> List.of();
        })) {
            run("ctl", "--socket", socket.toString(), "list");
            run("rpc", "--socket", socket.toString(), "nvmf_get_subsystems");
        } finally {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(dir);
        }
        System.exit(0);
    }

    private static void run(String... args) {
        try {
            Nvmf4j.commandLine(args).execute(args);
        } catch (RuntimeException e) {
            // a step that fails has loaded its classes all the same
        }
    }
}
