package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A port with {@code "trtype": "tcp"} is served, with the address rules Linux nvmet has for NVMe/TCP; messages
 * are exact and documents laid out so that their line numbers can be checked by eye (line 1 is the opening brace).
 */
class TcpPortTest {

    private static final String NQN = "nqn.2024-01.io.nvmf4j:a";

    @TempDir
    Path dir;

    @BeforeEach
    void createDiskImage() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[4096]);
    }

    private LoadedConfig load(String json) throws ConfigException {
        return ConfigLoader.standard().parse(json, "config.json", dir);
    }

    private String errors(String json) {
        return assertThrows(ConfigException.class, () -> load(json)).getMessage();
    }

    /** One port exporting subsystem a; {@code addr} is spliced in at line 4. */
    private static String onePort(String addr) {
        return """
                {
                  "ports": [{
                    "portid": 1,
                    "addr": %s,
                    "subsystems": ["nqn.2024-01.io.nvmf4j:a"]
                  }],
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"},
                    "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}}]}]
                }
                """.formatted(addr);
    }

    @Test
    void tcpPortAsNvmetcliSavesItIsServed() throws Exception {
        LoadedConfig loaded = load(onePort("""
                {"adrfam": "ipv4", "traddr": "192.168.100.8", "treq": "not specified", "trsvcid": "4420",
                             "trtype": "tcp", "tsas": "none"}"""));
        assertEquals("", loaded.formatWarnings());
        PortConfig port = loaded.config().ports().getFirst();
        assertEquals(1, port.portid());
        assertEquals(new PortAddress("tcp", "ipv4", "192.168.100.8", "4420", "not specified"), port.addr());
        assertEquals(List.of(NQN), port.subsystems());
        assertEquals(PortParams.defaults(), port.param());
    }

    @Test
    void tcpPortOnIpv6WithoutTsasOrTreq() throws Exception {
        LoadedConfig loaded = load(onePort("""
                {"trtype": "tcp", "adrfam": "ipv6", "traddr": "fd00::8", "trsvcid": "4421", "tsas": ""}"""));
        assertEquals("", loaded.formatWarnings());
        assertEquals(new PortAddress("tcp", "ipv6", "fd00::8", "4421", "not specified"),
                loaded.config().ports().getFirst().addr());
    }

    @Test
    void tcpPortWithoutTrsvcidListensOnTheNvmeOfPort() throws Exception {
        PortAddress addr = load(onePort("""
                {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.1"}""")).config().ports().getFirst().addr();
        assertEquals("4420", addr.trsvcid());
        assertEquals(4420, addr.port());
    }

    @Test
    void rdmaPortStillNeedsItsTrsvcid() {
        assertEquals("config.json:4: ports[0].addr.trsvcid: is required", errors(onePort("""
                {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1"}""")));
    }

    @Test
    void tcpAddressRules() {
        assertEquals("""
                     config.json:3: ports[0].addr.adrfam: unsupported address family "ib" (supported: ipv4, ipv6)
                     config.json:4: ports[1].addr.adrfam: unsupported address family "fc" (supported: ipv4, ipv6)
                     config.json:5: ports[2].addr.traddr: "target.example.com" is not an IP address (host names are not resolved)
                     config.json:6: ports[3].addr.traddr: "fe80::1" is an IPv6 address but adrfam is ipv4
                     config.json:7: ports[4].addr.trsvcid: must be a port number between 1 and 65535, got "nvme"
                     config.json:8: ports[5].addr.trsvcid: must be a port number between 1 and 65535, got "0"
                     config.json:9: ports[6].addr.treq: must be one of "not specified", "required", "not required", got "maybe"
                     config.json:10: ports[7].addr.tsas: must be "none" (NVMe/TCP without TLS) or empty, got "connected"\
                     """, errors("""
                {
                  "ports": [
                    {"portid": 1, "addr": {"trtype": "tcp", "adrfam": "ib", "traddr": "10.0.0.1", "trsvcid": "4420"}},
                    {"portid": 2, "addr": {"trtype": "tcp", "adrfam": "fc", "traddr": "10.0.0.2", "trsvcid": "4420"}},
                    {"portid": 3, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "target.example.com"}},
                    {"portid": 4, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "fe80::1", "trsvcid": "4420"}},
                    {"portid": 5, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.5", "trsvcid": "nvme"}},
                    {"portid": 6, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.6", "trsvcid": "0"}},
                    {"portid": 7, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.7", "treq": "maybe"}},
                    {"portid": 8, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.8", "tsas": "connected"}}
                  ]
                }
                """));
    }

    @Test
    void tlsOnATcpPortIsRefusedNamingTheFieldAndLine() {
        assertEquals("config.json:4: ports[0].addr.tsas: is \"tls1.3\": a secure channel (TLS) not supported by"
                + " nvmf4j (serving without it would change what hosts get; --config-allow-unsupported tls ignores"
                + " it)", errors(onePort("""
                {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420", "tsas": "tls1.3"}""")));
        assertEquals("config.json:4: ports[0].addr.treq: is \"required\": a secure channel (TLS) not supported by"
                + " nvmf4j (serving without it would change what hosts get; --config-allow-unsupported tls ignores"
                + " it)", errors(onePort("""
                {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420", "treq": "required"}""")));
    }

    @Test
    void tlsOnATcpPortIsIgnoredWithAWarningOnlyWhenTheUserAllowsIt() throws Exception {
        LoadedConfig loaded = ConfigLoader.standard().allowingUnsupported(Set.of(UnsupportedFeature.TLS))
                .parse(onePort("""
                {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420", "tsas": "tls1.3",
                             "treq": "not required"}"""), "config.json", dir);
        assertEquals("warning: config.json:4: ports[0].addr.tsas: is \"tls1.3\": a secure channel (TLS) not"
                + " supported by nvmf4j, ignored as --config-allow-unsupported tls asks", loaded.formatWarnings());
        assertEquals(new PortAddress("tcp", "ipv4", "10.0.0.1", "4420", "not required"),
                loaded.config().ports().getFirst().addr());
    }

    @Test
    void loopAndFibreChannelPortsAreStillSkippedBesideATcpPort() throws Exception {
        LoadedConfig loaded = load("""
                {
                  "ports": [
                    {"portid": 1, "addr": {"trtype": "loop", "adrfam": "", "traddr": "", "trsvcid": ""}},
                    {"portid": 2, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.2", "trsvcid": "4420"}},
                    {"portid": 3, "addr": {"trtype": "fc", "adrfam": "fc", "traddr": "nn-0x1:pn-0x2", "trsvcid": "none"}}
                  ]
                }
                """);
        assertEquals("""
                     warning: config.json:3: ports[0].addr.trtype: transport "loop" is not spoken by nvmf4j (rdma and tcp only): port 1 skipped
                     warning: config.json:5: ports[2].addr.trtype: transport "fc" is not spoken by nvmf4j (rdma and tcp only): port 3 skipped\
                     """, loaded.formatWarnings());
        assertEquals(List.of(2), loaded.config().ports().stream().map(PortConfig::portid).toList());
    }

    /** rdma and tcp ports in one file, the same subsystem on both, as a target serving both transports has it. */
    private static final String BOTH = """
            {
              "hosts": [],
              "ports": [
                {"portid": 1, "subsystems": ["nqn.2024-01.io.nvmf4j:a"],
                 "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420",
                          "treq": "not specified", "tsas": "connected"},
                 "param": {"inline_data_size": "8192", "max_queue_size": "-1", "mdts": "-1", "pi_enable": "0"}},
                {"portid": 2, "subsystems": ["nqn.2024-01.io.nvmf4j:a"],
                 "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420",
                          "treq": "not required", "tsas": "none"},
                 "param": {"inline_data_size": "-1", "max_queue_size": "256", "mdts": "5", "pi_enable": "0"},
                 "ana_groups": [{"grpid": 1, "ana": {"state": "optimized"}}],
                 "referrals": [{"name": "peer", "enable": 1,
                                "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.9", "trsvcid": "4420",
                                         "portid": "0", "treq": "not specified"}}]}
              ],
              "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"},
                "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}}]}]
            }
            """;

    @Test
    void rdmaAndTcpPortsInOneFileMayShareAnAddress() throws Exception {
        LoadedConfig loaded = load(BOTH);
        assertEquals("", loaded.formatWarnings());
        List<PortConfig> ports = loaded.config().ports();
        assertEquals(new PortAddress("rdma", "ipv4", "10.0.0.1", "4420", "not specified"), ports.get(0).addr());
        assertEquals(new PortParams(8192, -1, -1), ports.get(0).param());
        assertEquals(new PortAddress("tcp", "ipv4", "10.0.0.1", "4420", "not required"), ports.get(1).addr());
        assertEquals(new PortParams(-1, 256, 5), ports.get(1).param());
        assertEquals(List.of(NQN), ports.get(1).subsystems());
        assertEquals(List.of(new AnaGroup(1, "optimized")), ports.get(1).anaGroups());
        assertEquals("tcp", ports.get(1).referrals().getFirst().addr().get("trtype"));
    }

    @Test
    void twoTcpPortsOnOneAddressAreRefusedAsTwoRdmaPortsAre() {
        assertEquals("config.json:3: ports[1].addr: listens on 10.0.0.1 port 4420 like ports[0] (line 2)",
                errors("""
                {
                  "ports": [{"portid": 1, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.1"}},
                            {"portid": 2, "addr": {"trtype": "tcp", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420"}}]
                }
                """));
    }

    @Test
    void tcpPortSurvivesWriteAndReload() throws Exception {
        TargetConfig first = load(BOTH).config();
        TargetConfig second = ConfigLoader.standard().parse(first.toJson(), "saved.json", dir).config();
        assertEquals(first, second);
        assertEquals(first.toJson(), second.toJson(), "writing is deterministic");
    }

    @Test
    void tcpPortIsWrittenAsNvmetcliSavesIt() throws Exception {
        JsonNode written = new ObjectMapper().readTree(load(BOTH).config().toJson()).get("ports").get(1);
        assertEquals(new ObjectMapper().readTree("""
                {
                  "addr": {"adrfam": "ipv4", "traddr": "10.0.0.1", "treq": "not required", "trsvcid": "4420",
                           "trtype": "tcp"},
                  "ana_groups": [{"ana": {"state": "optimized"}, "grpid": 1}],
                  "param": {"inline_data_size": "-1", "max_queue_size": "256", "mdts": "5"},
                  "portid": 2,
                  "referrals": [{"addr": {"adrfam": "ipv4", "portid": "0", "traddr": "10.0.0.9",
                                          "treq": "not specified", "trsvcid": "4420", "trtype": "tcp"},
                                 "enable": 1, "name": "peer"}],
                  "subsystems": ["nqn.2024-01.io.nvmf4j:a"]
                }
                """), written);
    }

    @Test
    void quickFormServesTcpWhenAsked() throws Exception {
        TargetConfig c = QuickConfig.builder().nqn(NQN).ram("1M").transport("tcp").listen("127.0.0.1:4430").build()
                .config();
        assertEquals(new PortAddress("tcp", "ipv4", "127.0.0.1", "4430", "not specified"),
                c.ports().getFirst().addr());
        ConfigException e = assertThrows(ConfigException.class,
                () -> QuickConfig.builder().nqn(NQN).ram("1M").transport("udp").build());
        assertEquals("command line: --transport: must be rdma or tcp, got \"udp\"", e.getMessage());
        assertEquals("rdma", QuickConfig.builder().nqn(NQN).ram("1M").build().config().ports().getFirst().addr()
                .trtype(), "rdma stays the default");
    }
}
