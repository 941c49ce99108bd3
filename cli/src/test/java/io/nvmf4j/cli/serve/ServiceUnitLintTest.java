package io.nvmf4j.cli.serve;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * packaging/systemd's units, checked without a running systemd: every key is one systemd knows in its section
 * (systemd.unit(5), systemd.service(5), systemd.exec(5), systemd.kill(5)), the service promises hold (reload is
 * SIGHUP, stop is SIGTERM, hardening, locked memory for RDMA), ExecStart parses as {@code nvmf4j serve} flags, and
 * the socket's directory is writable under ProtectSystem=strict. {@code systemd-analyze verify} runs too where
 * installed.
 */
class ServiceUnitLintTest {

    private static final Map<String, Set<String>> KNOWN = Map.of(
            "Unit", Set.of("Description", "Documentation", "After", "Wants", "Requires", "Before"),
            "Service", Set.of("Type", "ExecStart", "ExecReload", "KillSignal", "KillMode", "TimeoutStopSec",
                    "Restart", "RestartSec", "RuntimeDirectory", "RuntimeDirectoryMode", "ConfigurationDirectory",
                    "StateDirectory", "NoNewPrivileges", "ProtectSystem", "ReadWritePaths", "ProtectHome",
                    "PrivateTmp", "ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs",
                    "ProtectControlGroups", "ProtectClock", "ProtectHostname", "RestrictSUIDSGID", "RestrictRealtime",
                    "LockPersonality", "RestrictNamespaces", "RestrictAddressFamilies", "LimitMEMLOCK",
                    "LimitNOFILE", "UMask", "Environment"),
            "Install", Set.of("WantedBy"));

    private static Path unit(String name) {
        Path p = Path.of("..", "packaging", "systemd", name);
        return Files.exists(p) ? p : Path.of("packaging", "systemd", name);
    }

    private static Map<String, Map<String, String>> parse(Path file) throws Exception {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Map<String, String> current = null;
        int n = 0;
        for (String line : Files.readAllLines(file)) {
            n++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#") || t.startsWith(";")) {
                continue;
            }
            if (t.startsWith("[")) {
                String name = t.substring(1, t.length() - 1);
                assertTrue(KNOWN.containsKey(name), file + ":" + n + ": unknown section " + t);
                current = new LinkedHashMap<>();
                sections.put(name, current);
                continue;
            }
            assertTrue(current != null, file + ":" + n + ": key outside a section");
            int eq = t.indexOf('=');
            assertTrue(eq > 0, file + ":" + n + ": not KEY=VALUE: " + t);
            String key = t.substring(0, eq);
            String section = sections.keySet().stream().reduce((a, b) -> b).orElseThrow();
            assertTrue(KNOWN.get(section).contains(key), file + ":" + n + ": [" + section + "] has no key " + key);
            assertTrue(current.put(key, t.substring(eq + 1)) == null, file + ":" + n + ": " + key + " twice");
        }
        return sections;
    }

    @ParameterizedTest
    @ValueSource(strings = {"nvmf4j.service", "nvmf4j@.service"})
    void theUnitKeepsTheServicePromises(String name) throws Exception {
        Map<String, String> s = parse(unit(name)).get("Service");
        String instance = name.contains("@") ? "demo" : null;
        java.util.function.UnaryOperator<String> expand = v -> instance == null ? v : v.replace("%i", instance);
        assertEquals("/bin/kill -HUP $MAINPID", s.get("ExecReload"));
        assertEquals("SIGTERM", s.get("KillSignal"));
        assertEquals("yes", s.get("NoNewPrivileges"));
        assertEquals("strict", s.get("ProtectSystem"));
        assertEquals("infinity", s.get("LimitMEMLOCK"));
        List<String> writable = Arrays.asList(expand.apply(s.get("ReadWritePaths")).split("\\s+"));
        assertTrue(writable.contains("/var/lib/nvmf4j") && writable.contains("/etc/nvmf4j"), writable.toString());

        List<String> exec = new ArrayList<>(Arrays.asList(expand.apply(s.get("ExecStart")).split("\\s+")));
        assertTrue(exec.get(0).startsWith("/"), "systemd wants an absolute ExecStart: " + exec.get(0));
        assertEquals("serve", exec.get(1));
        ServeCli serve = new ServeCli();
        new CommandLine(serve).parseArgs(exec.subList(2, exec.size()).toArray(String[]::new));
        assertTrue(serve.config.toString().startsWith("/etc/nvmf4j/"));
        Path socketDir = serve.rpcSocket.getParent();
        assertTrue(writable.contains(socketDir.toString()), "the socket's directory is writable: " + socketDir);
        assertEquals(socketDir.getFileName().toString(), expand.apply(s.get("RuntimeDirectory")),
                "systemd creates the socket's directory");
        assertEquals(OneLineLogFormat.Style.JOURNAL, ServeCli.logStyle(serve.logFormat, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"nvmf4j.service", "nvmf4j@.service"})
    void systemdAnalyzeVerifiesTheUnitWhereInstalled(String name) throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(analyze), "no systemd-analyze here");
        Path dir = Files.createTempDirectory("nvmf4j-unit");
        try {
            // the binary is not installed where the unit expects it; verify checks ExecStart exists
            String text = Files.readString(unit(name)).replace("/usr/local/bin/nvmf4j", "/bin/true");
            Path copy = dir.resolve(name.replace("@.", "@demo."));
            Files.writeString(copy, text);
            Process p = new ProcessBuilder(analyze.toString(), "verify", copy.toString()).redirectErrorStream(true)
                    .start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String out = new String(p.getInputStream().readAllBytes(), UTF_8);
            assertEquals(0, p.exitValue(), out);
            assertEquals("", out.strip(), "systemd-analyze verify is silent on a good unit");
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }
}
