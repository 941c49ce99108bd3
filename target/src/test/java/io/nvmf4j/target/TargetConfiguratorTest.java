package io.nvmf4j.target;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.ConfigLoader;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.rdma.RdmaProviderType;
import io.nvmf4j.target.backend.FileBackend;
import io.nvmf4j.target.backend.RamBackend;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An nvmetcli saveconfig.json (plus the nvmf4j section) becomes a serving target. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class TargetConfiguratorTest {

    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8052-b4c04f4e4d32";
    static final String SUBNQN = "nqn.2024-01.io.nvmf4j:disk0";

    @TempDir
    Path dir;

    private String json(String subnqn) {
        return """
            {
              "hosts": [ { "nqn": "%2$s" } ],
              "ports": [ {
                  "portid": 3,
                  "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420",
                            "treq": "not specified" },
                  "param": { "inline_data_size": "8192", "max_queue_size": "-1", "mdts": "-1" },
                  "subsystems": [ "%1$s" ], "referrals": [] } ],
              "subsystems": [ {
                  "nqn": "%1$s",
                  "attr": { "allow_any_host": "0", "serial": "7a1c24f6d0e3b95a", "model": "nvmf4j",
                            "version": "1.4", "cntlid_min": "10", "cntlid_max": "20", "ieee_oui": "0x123456" },
                  "allowed_hosts": [ "%2$s" ],
                  "namespaces": [
                    { "nsid": 1, "enable": 1,
                      "device": { "path": "disk0.img", "uuid": "d592cdf3-5d1c-44e0-8412-3fcf7d99df27",
                                  "nguid": "ef90689c-6c46-d44c-89c1-4067801309a8" } },
                    { "nsid": 3, "enable": 0, "device": { "path": "disk0.img" } } ] } ],
              "nvmf4j": {
                "provider": "softiwarp",
                "ram_namespaces": [ { "subsystem": "%1$s", "nsid": 2, "size": "1M", "block_size": 4096 } ]
              }
            }
            """.formatted(subnqn, HOST);
    }

    private TargetConfig load(String subnqn) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("disk0.img").toFile(), "rw")) {
            raf.setLength(4 << 20);
        }
        return ConfigLoader.standard().parse(json(subnqn), "test.json", dir).config();
    }

    @Test
    void nvmetcliConfigurationBuildsSubsystemsNamespacesAndPorts() throws Exception {
        try (NvmeTarget target = TargetConfigurator.build(load(SUBNQN))) {
            Subsystem s = target.subsystem(Nqn.parse(SUBNQN));
            assertEquals("7a1c24f6d0e3b95a", s.serial());
            assertEquals(0x0001_0400, s.version());
            assertTrue(s.hostAllowed(HOST));
            assertFalse(s.allowsAnyHost());

            SubsystemNamespace file = s.activeNamespace(1);
            assertInstanceOf(FileBackend.class, file.backend());
            assertEquals(UUID.fromString("d592cdf3-5d1c-44e0-8412-3fcf7d99df27"), file.uuid().orElseThrow());
            assertTrue(file.hasNguid());
            SubsystemNamespace ram = s.activeNamespace(2);
            assertInstanceOf(RamBackend.class, ram.backend());
            assertEquals(4096, ram.backend().blockSize());
            assertEquals(256, ram.backend().blockCount());
            assertTrue(ram.uuid().isPresent(), "derived UUID");
            assertEquals(UUID.nameUUIDFromBytes((SUBNQN + "/2").getBytes(UTF_8)), ram.uuid().orElseThrow());
            assertTrue(s.hasNamespace(3) && s.activeNamespace(3) == null, "nsid 3 configured but disabled");

            Port port = target.ports().getFirst();
            assertEquals(3, port.portId());
            assertEquals(8192, port.inlineDataSize());
            assertEquals(RdmaProviderType.NOT_SPECIFIED, port.rdmaProviderType());
            // "treq": "not specified" sets the secure channel bits only; SQ flow control disable stays offered
            assertEquals(DiscoveryLogEntry.TREQ_NOT_SPECIFIED | DiscoveryLogEntry.TREQ_DISABLE_SQFLOW, port.treq());
            assertEquals(java.util.List.of(s), port.subsystems());

            // and it serves: a host connects, gets controller ID 10, sees the OUI and IOCCSZ
            LoopHost host = new LoopHost(target, port, HOST).connectAndEnable(SUBNQN);
            assertEquals(10, host.cntlid);
            MemorySegment id = host.buffer(4096);
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0);
            assertEquals(0, host.submit(host.admin, sqe, id).cqe().statusField());
            assertEquals(0x56, Wire.u8(id, 73), "IEEE OUI, little-endian");
            assertEquals(0x12, Wire.u8(id, 75));
            assertEquals(0x0001_0400L, Wire.u32(id, 80));
            assertEquals((64 + 8192) / 16, Wire.u32(id, 1792));
        }
    }

    @Test
    void aHostsDhchapKeysBecomeTheSubsystemsKeysForThatHost() throws Exception {
        String key = "DHHC-1:03:XaedOIjF3axQewl4QMTIr4xwmePzL78hYgnSQQP1S88iKE5wNLtXmomXR19QrsC/88ytGEVjd56B9IxAUHG5cM"
                + "GgMCQ=:";
        String ctrl = "DHHC-1:00://79/Pv6+fj39vX08/Lx8O/u7ezr6uno5+bl5OPi4eAsgEB3:";
        String text = json(SUBNQN).replace("\"hosts\": [ { \"nqn\": \"" + HOST + "\" } ]",
                "\"hosts\": [ { \"nqn\": \"" + HOST + "\", \"dhchap\": { \"key\": \"" + key + "\", \"ctrl_key\": \""
                        + ctrl + "\", \"hash\": \"hmac(sha512)\", \"dhgroup\": \"ffdhe8192\" } } ]");
        load(SUBNQN);
        TargetConfig config = ConfigLoader.standard().parse(text, "test.json", dir).config();
        try (NvmeTarget target = TargetConfigurator.build(config)) {
            Subsystem s = target.subsystem(SubsystemNqn.of(SUBNQN));
            var keys = s.hostKeys(HOST).orElseThrow();
            assertEquals(io.nvmf4j.protocol.auth.DhchapSecret.parse(key), keys.key());
            assertEquals(io.nvmf4j.protocol.auth.DhchapSecret.parse(ctrl), keys.ctrlKey());
            assertEquals(java.util.Set.of(io.nvmf4j.protocol.auth.DhchapHash.SHA512), keys.hashes());
            assertEquals(java.util.Set.of(io.nvmf4j.protocol.auth.DhchapDhGroup.FFDHE8192), keys.dhGroups());
        }
        try (NvmeTarget target = TargetConfigurator.build(load(SUBNQN))) {
            assertTrue(target.subsystem(SubsystemNqn.of(SUBNQN)).hostKeys(HOST).isEmpty(), "no dhchap: no keys");
        }
    }

    @Test
    void aNameOutsideTheNqnFormsIsServedAsNvmetDoes() throws Exception {
        try (NvmeTarget target = TargetConfigurator.build(load("testnqn"))) {
            Subsystem s = target.subsystem(SubsystemNqn.of("testnqn"));
            assertFalse(s.nqn().isStandard());
            Port port = target.ports().getFirst();
            LoopHost host = new LoopHost(target, port, HOST).connectAndEnable("testnqn");
            MemorySegment id = host.buffer(4096);
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0);
            assertEquals(0, host.submit(host.admin, sqe, id).cqe().statusField());
            assertEquals("testnqn", Nqn.readField(id.asSlice(768, 256)));
        }
        assertThrows(IllegalArgumentException.class, () -> SubsystemNqn.of("a/b"));
        assertThrows(IllegalArgumentException.class, () -> SubsystemNqn.of(""));
    }

    @Test
    void versionStringsBecomeVsValues() {
        assertEquals(0x0001_0300, TargetConfigurator.parseVersion("1.3"));
        assertEquals(0x0002_0100, TargetConfigurator.parseVersion("2.1.0"));
        assertThrows(IllegalArgumentException.class, () -> TargetConfigurator.parseVersion("2"));
    }

    @Test
    void twoPortsWithAnaGroupsAndAReferralFromTheConfiguration() throws Exception {
        String json = """
            {
              "ports": [
                { "portid": 1,
                  "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420" },
                  "subsystems": [ "%1$s" ],
                  "ana_groups": [ { "grpid": 1, "ana": { "state": "optimized" } },
                                  { "grpid": 2, "ana": { "state": "optimized" } } ],
                  "referrals": [ { "name": "other", "enable": 1,
                                   "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "192.0.2.9",
                                             "trsvcid": "4420", "portid": "7", "treq": "not specified" } },
                                 { "name": "off", "enable": 0,
                                   "addr": { "trtype": "tcp", "adrfam": "ipv4", "traddr": "192.0.2.10",
                                             "trsvcid": "4420", "portid": "8" } } ] },
                { "portid": 2,
                  "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4421" },
                  "subsystems": [ "%1$s" ],
                  "ana_groups": [ { "grpid": 1, "ana": { "state": "non-optimized" } },
                                  { "grpid": 2, "ana": { "state": "inaccessible" } } ] } ],
              "subsystems": [ {
                  "nqn": "%1$s", "attr": { "allow_any_host": "1" },
                  "namespaces": [ { "nsid": 1, "enable": 1, "ana_grpid": 2, "device": { "path": "disk0.img" } } ] } ]
            }
            """.formatted(SUBNQN);
        try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("disk0.img").toFile(), "rw")) {
            raf.setLength(1 << 20);
        }
        TargetConfig config = ConfigLoader.standard().parse(json, "two-ports.json", dir).config();
        try (NvmeTarget target = TargetConfigurator.build(config)) {
            Subsystem s = target.subsystem(Nqn.parse(SUBNQN));
            Port one = target.ports().get(0);
            Port two = target.ports().get(1);
            assertEquals(java.util.List.of(s), one.subsystems());
            assertEquals(java.util.List.of(s), two.subsystems(), "one subsystem, two ports");
            assertEquals(2, s.activeNamespace(1).anaGroupId());
            assertEquals(io.nvmf4j.protocol.log.AnaState.OPTIMIZED, one.anaState(2));
            assertEquals(io.nvmf4j.protocol.log.AnaState.NON_OPTIMIZED, two.anaState(1));
            assertEquals(io.nvmf4j.protocol.log.AnaState.INACCESSIBLE, two.anaState(2));
            assertEquals(java.util.List.of(new Port.Referral(1, 1, "192.0.2.9", "4420", 7, 0)), one.referrals(),
                    "the enabled referral only");
            assertEquals(java.util.List.of(), two.referrals());
        }
    }
}
