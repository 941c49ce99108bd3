package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.DeviceConfig.FileDevice;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** nvmetcli's own saveconfig files load unchanged (device paths are those of the machine they came from). */
class NvmetcliExamplesTest {

    static Path resource(String name) throws Exception {
        return Path.of(NvmetcliExamplesTest.class.getResource("/nvmetcli/" + name).toURI());
    }

    @Test
    void nvmetcliRdmaExampleLoadsWithItsValuesAsStrings() throws Exception {
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks().load(resource("rdma.json"));
        TargetConfig c = loaded.config();

        assertEquals(List.of(new HostConfig("hostnqn")), c.hosts());
        PortConfig port = c.ports().getFirst();
        assertEquals(2, port.portid());
        assertEquals(new PortAddress("rdma", "ipv4", "192.168.6.68", "4420", "not specified"), port.addr());
        assertEquals(new InetSocketAddress("192.168.6.68", 4420), port.addr().socketAddress());
        assertEquals(List.of("testnqn"), port.subsystems());
        assertEquals(PortParams.defaults(), port.param());

        SubsystemConfig s = c.subsystem("testnqn").orElseThrow();
        assertTrue(s.attr().allowAnyHost(), "\"allow_any_host\": \"1\" is true");
        assertTrue(s.hostAllowed("nqn.2014-08.org.nvmexpress:uuid:any"));
        NamespaceConfig ns = s.namespaces().getFirst();
        assertEquals(1, ns.nsid());
        assertTrue(ns.enable());
        assertEquals(new FileDevice(Path.of("/dev/nvme0n1")), ns.backend());
        assertEquals(512, ns.blockSize());
        assertArrayEquals(HexFormat.of().parseHex("ef90689c6c46d44c89c14067801309a8"), ns.nguid());
        assertNull(ns.uuid());
        assertEquals(Nvmf4jSettings.defaults(), c.nvmf4j());
    }

    @Test
    void nvmetcliShortNamesLoadWithAWarningNotAnError() throws Exception {
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks().load(resource("rdma.json"));
        String source = resource("rdma.json").toString();
        assertEquals(String.join("\n",
                "warning: " + source + ":4: hosts[0].nqn: \"hostnqn\" is not an NVMe-form NQN"
                        + " (must begin with \"nqn.\"); accepted, as Linux nvmet does",
                "warning: " + source + ":39: subsystems[0].nqn: \"testnqn\" is not an NVMe-form NQN"
                        + " (must begin with \"nqn.\"); accepted, as Linux nvmet does"),
                loaded.formatWarnings());
    }

    @Test
    void missingDeviceIsReportedWithItsLineWhenPathsAreChecked() throws Exception {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.standard().load(resource("rdma.json")));
        assertEquals(resource("rdma.json") + ":33: subsystems[0].namespaces[0].device.path:"
                + " no such file or block device: /dev/nvme0n1", e.getMessage());
    }

    @Test
    void nvmetcliLoopExampleLoadsWithItsLoopPortSkipped() throws Exception {
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks().load(resource("loop.json"));
        assertEquals(List.of(), loaded.config().ports());
        assertTrue(loaded.formatWarnings().contains(resource("loop.json") + ":14: ports[0].addr.trtype: transport"
                + " \"loop\" is not spoken by nvmf4j (rdma and tcp only): port 1 skipped"), loaded.formatWarnings());
    }

    @Test
    void fullDumpOfACurrentKernelLoadsEveryAttribute() throws Exception {
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks().load(resource("rdma-full.json"));
        TargetConfig c = loaded.config();
        assertEquals("", loaded.formatWarnings());

        PortConfig p1 = c.ports().get(0);
        assertEquals(PortParams.defaults(), p1.param(), "\"-1\" means let the transport choose");
        assertEquals(4096, p1.param().effectiveInlineDataSize(c.nvmf4j()));
        assertEquals(128, p1.param().effectiveMaxQueueSize(c.nvmf4j()));
        assertEquals(8, p1.param().effectiveMdts(c.nvmf4j()));
        assertEquals(List.of(new AnaGroup(1, "optimized")), p1.anaGroups());

        PortConfig p2 = c.ports().get(1);
        assertEquals(new PortAddress("rdma", "ipv6", "fd00::8", "4421", "not specified"), p2.addr());
        assertEquals(new PortParams(8192, 256, 5), p2.param());
        assertEquals(List.of(new Referral("peer", Map.of("adrfam", "ipv4", "portid", "0", "traddr",
                "192.168.100.9", "treq", "not specified", "trsvcid", "4420", "trtype", "rdma"), true)),
                p2.referrals());

        SubsystemConfig s = c.subsystems().getFirst();
        String host = "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8052-b4c04f4e4d32";
        assertEquals(new SubsystemAttributes(false, "7a1c24f6d0e3b95a", "Linux", "1.3", 1, 65519, 128, "6.8.0", 0),
                s.attr());
        assertEquals(List.of(host), s.allowedHosts());
        assertTrue(s.hostAllowed(host));
        assertFalse(s.hostAllowed("nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001"));
        assertEquals(2, s.namespaces().size());
        NamespaceConfig ns1 = s.namespace(1).orElseThrow();
        assertNull(ns1.nguid(), "Linux shows an unset NGUID as zeroes");
        assertEquals(UUID.fromString("d592cdf3-5d1c-44e0-8412-3fcf7d99df27"), ns1.uuid());
        assertFalse(s.namespace(2).orElseThrow().enable());
    }
}
