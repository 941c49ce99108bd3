package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.ConfigException;
import io.nvmf4j.config.LoadedConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code serve --config-allow-unsupported FEATURE}: the only way a file with an unsupported field loads. */
class ConfigAllowUnsupportedTest {

    @TempDir
    Path dir;

    private Path fileWithProtectionInformation() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[4096]);
        return Files.writeString(dir.resolve("config.json"), """
                {
                  "ports": [{
                    "portid": 1,
                    "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420"},
                    "param": {"pi_enable": "1"},
                    "subsystems": ["nqn.2024-01.io.nvmf4j:a"]
                  }],
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "attr": {"allow_any_host": "1"},
                    "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}}]
                  }]
                }
                """);
    }

    private static ServeCli parsed(String... args) {
        ServeCli serve = new ServeCli();
        new CommandLine(serve).parseArgs(args);
        return serve;
    }

    @Test
    void protectionInformationIsRefusedNamingTheFlagThatWouldAllowIt() throws Exception {
        Path file = fileWithProtectionInformation();
        ConfigException e = assertThrows(ConfigException.class, () -> parsed("--config", file.toString()).load());
        assertEquals(file + ":5: ports[0].param.pi_enable: is 1: protection information not supported by"
                + " nvmf4j (serving without it would change what hosts get; --config-allow-unsupported pi"
                + " ignores it)", e.getMessage());
    }

    @Test
    void theFlagLoadsItWithAWarning() throws Exception {
        Path file = fileWithProtectionInformation();
        LoadedConfig loaded = parsed("--config", file.toString(), "--config-allow-unsupported", "tls,pi")
                .load();
        assertTrue(loaded.formatWarnings().contains("ignored as --config-allow-unsupported pi asks"),
                loaded.formatWarnings());
    }

    @Test
    void anUnknownFeatureNameIsRefused() throws Exception {
        Path file = fileWithProtectionInformation();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parsed("--config",
                file.toString(), "--config-allow-unsupported", "dhchap").load());
        assertEquals("--config-allow-unsupported: \"dhchap\" is not one of tls, passthru, pi", e.getMessage());
    }
}
