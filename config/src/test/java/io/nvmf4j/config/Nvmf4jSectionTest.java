package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.DeviceConfig.FileDevice;
import io.nvmf4j.config.DeviceConfig.RamDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our own section: settings, RAM namespaces merged into their subsystem, per-namespace block sizes. */
class Nvmf4jSectionTest {

    @TempDir
    Path dir;

    @Test
    void settingsRamNamespacesAndBlockSizesLoadIntoTheModel() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[8192]);
        LoadedConfig loaded = ConfigLoader.standard().parse("""
                {
                  "hosts": [],
                  "ports": [{"portid": 1, "subsystems": ["nqn.2024-01.io.nvmf4j:a"],
                             "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420"}}],
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"},
                    "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}}]}],
                  "nvmf4j": {
                    "provider": "softiwarp",
                    "poll_groups": {"count": 2, "spin_budget_us": 80},
                    "buffer_pool": {"count": 512, "buffer_size": "64K"},
                    "queues": {"max_queue_size": 256, "inline_data_size": 8192, "mdts": 6},
                    "keep_alive": {"discovery_kato_ms": 60000},
                    "metrics_port": 9464,
                    "default_block_size": 4096,
                    "controller_share": {"per_host_nqn": 4, "per_address": 16},
                    "ram_namespaces": [
                      {"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 3, "size": "1G", "block_size": 512},
                      {"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 2, "size": 1048576, "enable": 0,
                       "uuid": "0b1f6f3c-8a34-4c47-9a25-3a3d8e2b9f10"}
                    ],
                    "namespace_options": [{"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 1, "block_size": 512}]
                  }
                }
                """, "config.json", dir);
        assertEquals("", loaded.formatWarnings());
        TargetConfig c = loaded.config();
        assertEquals(new Nvmf4jSettings(Provider.SOFTIWARP, 2, 80, 512, 65536, 256, 8192, 6, 60000, 9464, 4096,
                "auto", Nvmf4jSettings.DEFAULT_BACKEND_TIMEOUT_MILLIS,
                4, 16), c.nvmf4j());
        List<NamespaceConfig> ns = c.subsystems().getFirst().namespaces();
        assertEquals(List.of(1L, 2L, 3L), ns.stream().map(NamespaceConfig::nsid).toList(), "sorted by nsid");
        assertEquals(new FileDevice(dir.resolve("disk.img")), ns.get(0).backend());
        assertEquals(512, ns.get(0).blockSize(), "namespace_options overrides default_block_size");
        assertEquals(new RamDevice(1L << 20), ns.get(1).backend());
        assertEquals(4096, ns.get(1).blockSize(), "default_block_size applies to RAM namespaces without one");
        assertFalse(ns.get(1).enable());
        assertEquals(new RamDevice(1L << 30), ns.get(2).backend());
        assertTrue(ns.get(2).enable(), "RAM namespaces are enabled unless they say otherwise");
        assertEquals(512, ns.get(2).blockSize());
        PortParams p = c.ports().getFirst().param();
        assertEquals(8192, p.effectiveInlineDataSize(c.nvmf4j()), "port left at -1 takes the section's value");
        assertEquals(256, p.effectiveMaxQueueSize(c.nvmf4j()));
        assertEquals(6, p.effectiveMdts(c.nvmf4j()));
    }

    @Test
    void withoutTheSectionTheDefaultsFollowLinuxNvmetRdma() throws Exception {
        Nvmf4jSettings d = ConfigLoader.standard().parse("{}", "config.json", dir).config().nvmf4j();
        assertEquals(Provider.AUTO, d.provider());
        assertEquals(4096, d.inlineDataSize(), "NVMET_RDMA_DEFAULT_INLINE_DATA_SIZE = PAGE_SIZE");
        assertEquals(8, d.mdts(), "NVMET_RDMA_MAX_MDTS");
        assertEquals(120_000, d.discoveryKatoMillis(), "NVMET_DISC_KATO_MS");
        assertEquals(512, d.defaultBlockSize());
        assertEquals(null, d.metricsPort());
    }

    @Test
    void ramOnlySubsystemNeedsNoFile() throws Exception {
        TargetConfig c = ConfigLoader.standard().parse("""
                {"subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:ram", "attr": {"allow_any_host": "1"}}],
                 "nvmf4j": {"ram_namespaces": [{"subsystem": "nqn.2024-01.io.nvmf4j:ram", "nsid": 1, "size": "64M"}]}}
                """, "config.json", dir).config();
        NamespaceConfig ns = c.subsystem("nqn.2024-01.io.nvmf4j:ram").orElseThrow().namespace(1).orElseThrow();
        assertEquals(new RamDevice(64L << 20), ns.backend());
    }

    @Test
    void spinBudgetAndPollGroupLimits() {
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> ConfigLoader.standard().parse("""
                        {"nvmf4j": {
                          "poll_groups": {"count": 1000, "spin_budget_us": -1},
                          "buffer_pool": {"buffer_size": "3000"}}}
                        """, "config.json", dir));
        assertEquals("""
                     config.json:2: nvmf4j.poll_groups.count: must be between 0 and 256, got 1000
                     config.json:2: nvmf4j.poll_groups.spin_budget_us: must be between 0 and 1000000, got -1
                     config.json:3: nvmf4j.buffer_pool.buffer_size: must be a power of two between 4K and 16M, got 3000\
                     """,
                e.getMessage());
    }

    @Test
    void backendIoModeAndTimeoutLoadAndABadOneNamesTheFieldAndLine() throws Exception {
        LoadedConfig ok = ConfigLoader.standard().parse("""
                {"nvmf4j": {"backend_io": {"mode": "threads", "timeout_ms": 5000}}}
                """, "config.json", dir);
        assertEquals("threads", ok.config().nvmf4j().backendIo());
        assertEquals(5000, ok.config().nvmf4j().backendTimeoutMillis());
        assertEquals("auto", Nvmf4jSettings.defaults().backendIo(), "io_uring where the kernel has it");
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> ConfigLoader.standard().parse("""
                        {"nvmf4j": {
                          "backend_io": {"mode": "aio", "timeout_ms": 0}}}
                        """, "config.json", dir));
        assertEquals("""
                     config.json:2: nvmf4j.backend_io.mode: must be one of auto, uring, threads, got "aio"
                     config.json:2: nvmf4j.backend_io.timeout_ms: must be between 100 and 3600000, got 0\
                     """,
                e.getMessage());
    }
}
