package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.serve.RpcMethods;
import io.nvmf4j.cli.serve.RpcServer;
import io.nvmf4j.cli.serve.TargetDaemon;
import io.nvmf4j.cli.serve.TestDaemons;
import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's sessions of "Using a remote namespace" and "Changing a running target", run: every {@code $ }
 * command of their code blocks against a daemon like the README's ({@code serve --file /tmp/disk.img --nqn
 * nqn.2026-12.io.nvmf4j:disk --listen 127.0.0.1:4420}, here softiwarp on a free loopback port and a sandbox for the
 * files), and the output compared with the lines the README shows under it: the same lines with the same field
 * names, numbers aside ("..." in the README stands for lines left out). So the README cannot drift from the program
 * again. A block right after {@code <!-- readme-test: not run ... -->} is skipped, with the reason in that comment
 * (lab output); a {@code sudo} command is not run (it changes the machine). What each command printed is written to
 * target/readme-examples.txt, the README's paths and port put back, to paste from.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReadmeExamplesTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:disk";

    /** A command with the lines the README shows under it. */
    record Example(String section, String command, List<String> expected) {
    }

    @TempDir
    Path sandbox;

    /** The README's paths, and where they are in this test. */
    private Map<String, Path> paths() {
        Map<String, Path> m = new LinkedHashMap<>();
        m.put("/tmp/disk.img", sandbox.resolve("disk.img"));
        m.put("/tmp/second.img", sandbox.resolve("second.img"));
        m.put("/etc/nvmf4j/config.json", sandbox.resolve("config.json"));
        return m;
    }

    static List<String> readme() throws IOException {
        return Files.readAllLines(Path.of("..", "README.md"));
    }

    /** Every {@code $} command of the code blocks of section {@code title} (its subsections included). */
    static List<Example> examples(List<String> readme, String title) {
        List<Example> out = new ArrayList<>();
        int i = readme.indexOf("## " + title);
        assertTrue(i >= 0, "README has no section " + title);
        boolean skipNext = false;
        for (i = i + 1; i < readme.size() && !readme.get(i).startsWith("## "); i++) {
            String line = readme.get(i);
            if (line.startsWith("<!-- readme-test: not run")) {
                skipNext = true;
            } else if (line.equals("```") || line.equals("```sh")) {
                int end = i + 1;
                while (!readme.get(end).equals("```")) {
                    end++;
                }
                if (!skipNext) {
                    block(title, readme.subList(i + 1, end), out);
                }
                skipNext = false;
                i = end;
            }
        }
        return out;
    }

    private static void block(String section, List<String> lines, List<Example> out) {
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).startsWith("$ ")) {
                continue;
            }
            StringBuilder command = new StringBuilder(lines.get(i).substring(2));
            while (command.toString().endsWith("\\")) {   // continued on the next line
                command.setLength(command.length() - 1);
                command.append(' ').append(lines.get(++i).strip());
            }
            List<String> expected = new ArrayList<>();
            while (i + 1 < lines.size() && !lines.get(i + 1).startsWith("$ ")) {
                expected.add(lines.get(++i));
            }
            while (!expected.isEmpty() && expected.getLast().isEmpty()) {
                expected.removeLast();   // the blank line that separates two commands
            }
            out.add(new Example(section, command.toString(), expected));
        }
    }

    /**
     * A line as the comparison sees it: UUIDs, long hex strings (serials) and numbers (decimal, or hex with a
     * digit) as N, blanks as one space. A random UUID's group may be all letters, hence UUIDs first.
     */
    static String shape(String line) {
        return line.replaceAll("\\b[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\\b", "N")
                .replaceAll("\\b[0-9a-fA-F]{16,}\\b", "N")
                .replaceAll("[0-9A-Fa-f]*[0-9][0-9A-Fa-f]*", "N").replaceAll("\\s+", " ").strip();
    }

    /** {@code actual} has the lines of {@code expected}, "..." standing for any number of lines. */
    static boolean matches(List<String> expected, int e, List<String> actual, int a) {
        if (e == expected.size()) {
            return a == actual.size();
        }
        if (expected.get(e).strip().equals("...")) {
            for (int k = a; k <= actual.size(); k++) {
                if (matches(expected, e + 1, actual, k)) {
                    return true;
                }
            }
            return false;
        }
        return a < actual.size() && shape(expected.get(e)).equals(shape(actual.get(a)))
                && matches(expected, e + 1, actual, a + 1);
    }

    @Test
    void theReadmeSessionsPrintWhatTheReadmeShows() throws Exception {
        List<String> readme = readme();
        List<Example> examples = new ArrayList<>(examples(readme, "Using a remote namespace"));
        examples.addAll(examples(readme, "Changing a running target"));
        assertTrue(examples.size() >= 20, "the README's sessions have their commands: " + examples);

        Path disk = sandbox.resolve("disk.img");
        try (RandomAccessFile f = new RandomAccessFile(disk.toFile(), "rw")) {
            f.setLength(64L << 20);
        }
        int port = TestDaemons.freePort();
        Path socket = sandbox.resolve("nvmf4j.sock");
        TargetDaemon daemon = TargetDaemon.start(QuickConfig.builder().nqn(NQN).file(disk)
                .listen("127.0.0.1:" + port).provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
        StringBuilder transcript = new StringBuilder();
        List<String> drift = new ArrayList<>();
        RpcServer rpc = RpcServer.start(socket, new RpcMethods(daemon.live(), null)::call);
        try {
            Shell shell = new Shell(sandbox, port, socket, paths());
            for (Example ex : examples) {
                List<String> actual = shell.run(ex.command());
                transcript.append("$ ").append(ex.command()).append('\n');
                actual.forEach(l -> transcript.append(l).append('\n'));
                if (!matches(ex.expected(), 0, actual, 0)) {
                    drift.add(ex.section() + ": $ " + ex.command() + "\n  README:\n    "
                            + String.join("\n    ", ex.expected()) + "\n  printed:\n    "
                            + String.join("\n    ", actual));
                }
            }
        } finally {
            rpc.close();
            daemon.close();
            Files.writeString(Path.of("target", "readme-examples.txt"), transcript);
        }
        assertEquals("", String.join("\n\n", drift), "README output that is not what the commands print");
    }

    /**
     * Runs a README command line: {@code nvmf4j ...} (or {@code bin/nvmf4j}) in this JVM with the README's address,
     * port and paths replaced by the test daemon's and the sandbox's (what follows a {@code |} reads its output);
     * any other command with bash in the sandbox.
     */
    static final class Shell {
        private static final Pattern NVMF4J = Pattern.compile("^(?:bin/)?nvmf4j\\s");
        private final Path dir;
        private final int port;
        private final Path socket;
        private final Map<String, Path> paths;

        Shell(Path dir, int port, Path socket, Map<String, Path> paths) {
            this.dir = dir;
            this.port = port;
            this.socket = socket;
            this.paths = paths;
        }

        /** The README's text with the sandbox's paths and the daemon's port. */
        private String toSandbox(String s) {
            for (var p : paths.entrySet()) {
                s = s.replace(p.getKey(), p.getValue().toString());
            }
            return s.replaceAll("\\b4420\\b", Integer.toString(port));
        }

        /** Output with the README's paths and port again. */
        private String toReadme(String s) {
            for (var p : paths.entrySet()) {
                s = s.replace(p.getValue().toString(), p.getKey());
            }
            return s.replace(dir + "/", "").replaceAll("\\b" + port + "\\b", "4420");
        }

        List<String> run(String line) throws Exception {
            if (line.startsWith("sudo ")) {
                return List.of();   // not here: it changes the machine (the README says what it does)
            }
            List<String> stages = split(line, '|');
            if (!NVMF4J.matcher(stages.getFirst().strip()).find()) {
                return lines(bash(toSandbox(line), null));
            }
            String first = stages.getFirst().strip();
            boolean quiet = first.endsWith("2>/dev/null");
            if (quiet) {
                first = first.substring(0, first.length() - "2>/dev/null".length()).strip();
            }
            String[] out = nvmf4j(words(first.replaceFirst("^(bin/)?nvmf4j\\s+", "")));
            String text = quiet ? out[0] : out[0] + out[1];
            for (String next : stages.subList(1, stages.size())) {
                text = bash(toSandbox(next.strip()), out[0]);
                out[0] = text;
            }
            return lines(text);
        }

        private List<String> lines(String text) {
            List<String> l = new ArrayList<>();
            for (String s : toReadme(text).split("\n", -1)) {
                // the host identity warning of a machine without /etc/nvme/hostnqn: the README explains it apart
                if (!s.startsWith("nvmf4j: warning: using auto generated hostid and hostnqn")) {
                    l.add(s);
                }
            }
            while (!l.isEmpty() && l.getLast().isEmpty()) {
                l.removeLast();
            }
            return l;
        }

        /** stdout and stderr of one nvmf4j command run in this JVM. */
        private String[] nvmf4j(List<String> words) {
            List<String> args = new ArrayList<>();
            for (String w : words) {
                String s = toSandbox(w);
                args.add(s.matches("[A-Za-z0-9_.-]+\\.(bin|out)") ? dir.resolve(s).toString() : s);
            }
            String command = args.getFirst();
            if (command.equals("ctl") || command.equals("rpc")) {
                args.addAll(List.of("--rpc-socket", socket.toString()));
            } else if (!command.equals("show-hostnqn") && !command.equals("gen-hostnqn")) {
                args.addAll(List.of("--provider", "softiwarp"));
                boolean shortForm = command.equals("discover") || command.equals("identify")
                        || command.equals("list-subsys");
                boolean transportId = command.equals("perf") && args.contains("-r");   // the port is in it
                if (!args.contains(shortForm ? "-s" : "--trsvcid") && !transportId) {
                    args.addAll(List.of(shortForm ? "-s" : "--trsvcid", Integer.toString(port)));
                }
            }
            // ctl and rpc print to System.out/err, the others to picocli's writers: both are caught
            PrintStream stdout = System.out;
            PrintStream stderr = System.err;
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            CliRunner.Result r;
            try {
                System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
                System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
                r = CliRunner.run(args.toArray(String[]::new));
            } finally {
                System.setOut(stdout);
                System.setErr(stderr);
            }
            return new String[] {o.toString(StandardCharsets.UTF_8) + r.out(),
                e.toString(StandardCharsets.UTF_8) + r.err()};
        }

        private String bash(String command, String stdin) throws Exception {
            ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(dir.toFile())
                    .redirectErrorStream(true);
            Process p = pb.start();
            if (stdin != null) {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), command);
            return out;
        }

        /** {@code s} split at {@code sep} outside quotes. */
        static List<String> split(String s, char sep) {
            List<String> parts = new ArrayList<>();
            StringBuilder cur = new StringBuilder();
            char quote = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (quote != 0) {
                    quote = c == quote ? 0 : quote;
                } else if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == sep) {
                    parts.add(cur.toString());
                    cur.setLength(0);
                    continue;
                }
                cur.append(c);
            }
            parts.add(cur.toString());
            return parts;
        }

        /** Shell words: blanks separate, quotes group and are removed. */
        static List<String> words(String s) {
            List<String> words = new ArrayList<>();
            Matcher m = Pattern.compile("'([^']*)'|\"([^\"]*)\"|(\\S+)").matcher(s);
            while (m.find()) {
                words.add(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3));
            }
            return words;
        }
    }
}
