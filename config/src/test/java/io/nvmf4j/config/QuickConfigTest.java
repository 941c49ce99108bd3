package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.DeviceConfig.FileDevice;
import io.nvmf4j.config.DeviceConfig.RamDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code nvmf4j serve --file/--ram --nqn --listen} builds the same model a file would. */
class QuickConfigTest {

    static final String NQN = "nqn.2024-01.io.nvmf4j:disk";

    @TempDir
    Path dir;

    @Test
    void fileNqnListenGivesTheModelOfTheEquivalentFile() throws Exception {
        Path disk = Files.write(dir.resolve("disk.img"), new byte[4096]);
        TargetConfig quick = QuickConfig.builder().nqn(NQN).file(disk).listen("127.0.0.1:4420").build().config();

        TargetConfig fromFile = ConfigLoader.standard().parse("""
                {
                  "hosts": [],
                  "ports": [{"portid": 1, "subsystems": ["%s"],
                             "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420",
                                      "treq": "not specified"}}],
                  "subsystems": [{"nqn": "%s", "attr": {"allow_any_host": "1"}, "allowed_hosts": [],
                    "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "%s"}}]}]
                }
                """.formatted(NQN, NQN, disk), "config.json", dir).config();
        assertEquals(fromFile, quick);
    }

    @Test
    void ramWithIpv6AndDefaultPort() throws Exception {
        LoadedConfig loaded = QuickConfig.builder().nqn(NQN).ram("1G").listen("[::1]").blockSize(4096).build();
        TargetConfig c = loaded.config();
        assertEquals(new PortAddress("rdma", "ipv6", "::1", "4420", "not specified"), c.ports().getFirst().addr());
        NamespaceConfig ns = c.subsystems().getFirst().namespaces().getFirst();
        assertEquals(new RamDevice(1L << 30), ns.backend());
        assertEquals(4096, ns.blockSize());
        assertTrue(ns.enable());
        assertEquals("", loaded.formatWarnings());
    }

    @Test
    void allowHostRestrictsTheSubsystem() throws Exception {
        String host = "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8052-b4c04f4e4d32";
        TargetConfig c = QuickConfig.builder().nqn(NQN).ram(1 << 20).allowHost(host).build().config();
        SubsystemConfig s = c.subsystems().getFirst();
        assertEquals(List.of(new HostConfig(host)), c.hosts());
        assertEquals(List.of(host), s.allowedHosts());
        assertTrue(s.hostAllowed(host));
        assertTrue(!s.hostAllowed("nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001"));
    }

    @Test
    void problemsNameTheFlags() {
        ConfigException e = assertThrows(ConfigException.class, () -> QuickConfig.builder()
                .nqn("nqn.2024-01.io.nvmf4j:with space")
                .file(dir.resolve("missing.img"))
                .listen("localhost:4420")
                .blockSize(1024)
                .build());
        assertEquals(String.join("\n",
                "command line: --block-size: must be 512 or 4096, got 1024",
                "command line: --listen: \"localhost\" is not an IP address (host names are not resolved)",
                "command line: --file: no such file or block device: " + dir.resolve("missing.img"),
                "command line: --nqn: NQN \"nqn.2024-01.io.nvmf4j:with space\" contains a space, which cannot"
                        + " appear in an NQN"), e.getMessage());
    }

    @Test
    void missingNqnAndNamespaceAndBadSize() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> QuickConfig.builder().ram("1 gigabyte").listen("127.0.0.1:nvme").build());
        assertEquals("""
                     command line: --nqn: is required
                     command line: --ram: must be a size such as "1G", "512M" or a number of bytes, got "1 gigabyte"\
                     """,
                e.getMessage());
        ConfigException port = assertThrows(ConfigException.class,
                () -> QuickConfig.builder().nqn(NQN).ram("1M").listen("127.0.0.1:nvme").build());
        assertEquals("command line: --listen: must be a port number between 1 and 65535, got \"nvme\"",
                port.getMessage());
    }

    @Test
    void quickConfigFileNamespaceIsAbsolute() throws Exception {
        Path disk = Files.write(dir.resolve("d.img"), new byte[512]);
        TargetConfig c = QuickConfig.builder().nqn(NQN).file(disk).build().config();
        assertEquals(new FileDevice(disk.toAbsolutePath()), c.subsystems().getFirst().namespaces().getFirst()
                .backend());
        assertEquals("127.0.0.1", c.ports().getFirst().addr().traddr());
    }
}
