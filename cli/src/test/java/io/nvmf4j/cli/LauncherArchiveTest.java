package io.nvmf4j.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/nvmf4j's class-data archive, with a stand-in java that records its command lines: however many short
 * commands run, the work tree holds one archive, written by one training run, and every short command maps it (an
 * archive per subcommand, written by each one's first run, came to 70 MB).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherArchiveTest {

    @TempDir
    Path dir;

    private Path root;
    private Path log;
    private Path javaHome;

    private void install() throws Exception {
        root = dir.resolve("checkout");
        Path launcher = Files.exists(Path.of("..", "bin", "nvmf4j")) ? Path.of("..", "bin", "nvmf4j")
                : Path.of("bin", "nvmf4j");
        Files.createDirectories(root.resolve("bin"));
        Files.copy(launcher, root.resolve("bin/nvmf4j"));
        Files.setPosixFilePermissions(root.resolve("bin/nvmf4j"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(root.resolve("cli/target"));
        Files.write(root.resolve("cli/target/nvmf4j.jar"), new byte[100]); // no sources: never stale
        javaHome = dir.resolve("jdk");
        Files.createDirectories(javaHome.resolve("bin"));
        Files.writeString(javaHome.resolve("release"), "JAVA_VERSION=\"25.0.3\"\n");
        log = dir.resolve("java.log");
        // records each command line; a training run writes the archive it is asked for, as the JVM does at exit
        Files.writeString(javaHome.resolve("bin/java"), """
                #!/bin/bash
                echo "$*" >> "%s"
                for a in "$@"; do
                  case "$a" in -XX:ArchiveClassesAtExit=*) head -c 4096 /dev/zero > "${a#*=}";; esac
                done
                """.formatted(log));
        Files.setPosixFilePermissions(javaHome.resolve("bin/java"), PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private void nvmf4j(String... args) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Stream.concat(Stream.of(root.resolve("bin/nvmf4j").toString()),
                Stream.of(args)).toList()).redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile());
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().put("HOME", dir.toString());
        pb.environment().remove("NVMF4J_CDS");
        Process p = pb.start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "bin/nvmf4j " + String.join(" ", args));
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("out.txt")));
    }

    private List<Path> archives() throws Exception {
        Path cds = root.resolve("cli/target/cds");
        if (!Files.isDirectory(cds)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(cds)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jsa")).sorted().toList();
        }
    }

    private List<String> javaRuns() throws Exception {
        return Files.exists(log) ? Files.readAllLines(log, UTF_8) : List.of();
    }

    /** The background training run has written the archive (bounded wait: it is one stand-in process). */
    private Path awaitArchive() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() - deadline < 0) {
            List<Path> a = archives();
            if (a.size() == 1) {
                return a.getFirst();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no archive after 20 s: " + archives() + "\n" + javaRuns());
    }

    @Test
    void everyShortCommandSharesOneArchiveWrittenByOneTrainingRun() throws Exception {
        install();
        nvmf4j("--version");
        Path archive = awaitArchive();
        for (String[] command : List.of(new String[] {"discover", "-a", "127.0.0.1"},
                new String[] {"id-ctrl", "--traddr", "127.0.0.1"}, new String[] {"ctl", "list"},
                new String[] {"gen-hostnqn"}, new String[] {"--version"})) {
            nvmf4j(command);
        }
        nvmf4j("serve", "--ram", "1M");
        assertEquals(List.of(archive), archives(), "one archive in the work tree");
        List<String> runs = javaRuns();
        assertEquals(1, runs.stream().filter(r -> r.contains("io.nvmf4j.cli.StartupTraining")).count(), runs.toString());
        assertTrue(runs.stream().filter(r -> r.contains("-XX:ArchiveClassesAtExit=")).allMatch(
                r -> r.contains("io.nvmf4j.cli.StartupTraining")), "only the training run writes: " + runs);
        List<String> commands = runs.stream().filter(r -> r.contains("-jar")).toList();
        assertEquals(7, commands.size(), commands.toString());
        for (String r : commands.subList(1, 6)) {
            assertTrue(r.contains("-XX:SharedArchiveFile=" + archive), r);
        }
        assertFalse(commands.getLast().contains("SharedArchiveFile"), "serve runs long: no archive");
    }

    @Test
    void aRebuiltJarReplacesTheArchiveInsteadOfAddingOne() throws Exception {
        install();
        nvmf4j("--version");
        Path first = awaitArchive();
        Files.write(root.resolve("cli/target/nvmf4j.jar"), new byte[200]); // another build: another size
        nvmf4j("discover", "-a", "127.0.0.1");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (archives().contains(first) && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        Path second = awaitArchive();
        assertFalse(second.equals(first), "the new build's archive: " + second);
        assertTrue(second.getFileName().toString().endsWith("-200.jsa"), second.toString());
    }
}
