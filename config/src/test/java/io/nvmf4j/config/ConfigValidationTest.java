package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rule, with the exact message a user sees. Documents are small and laid out so that the line numbers in
 * the expected messages can be checked by eye (line 1 is the opening brace).
 */
class ConfigValidationTest {

    @TempDir
    Path dir;

    @BeforeEach
    void createDiskImage() throws Exception {
        Files.write(dir.resolve("disk.img"), new byte[4096]);
    }

    private String errors(String json) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.standard().parse(json, "config.json", dir));
        return e.getMessage();
    }

    private String warnings(String json) throws ConfigException {
        return ConfigLoader.standard().parse(json, "config.json", dir).formatWarnings();
    }

    @Test
    void nsidZeroIsOutOfRange() {
        assertEquals("config.json:9: subsystems[0].namespaces[1].nsid: must be between 1 and 4294967294, got 0",
                errors("""
                {
                  "ports": [],
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "attr": {"allow_any_host": "1"},
                    "namespaces": [
                      {"nsid": 1, "enable": 1, "device": {"path": "disk.img"}},
                      {"enable": 1, "device": {"path": "disk.img"},
                       "nsid": 0}
                    ]
                  }]
                }
                """));
    }

    @Test
    void fibreChannelPortIsSkippedWithOneWarningAsNvmetcliRestoreDoes() throws Exception {
        assertEquals("warning: config.json:5: ports[0].addr.trtype: transport \"fc\" is not spoken by nvmf4j"
                + " (rdma and tcp only): port 1 skipped", warnings("""
                {
                  "ports": [{
                    "portid": 1,
                    "addr": {"adrfam": "fc", "traddr": "nn-0x1000000044001123:pn-0x2000000055001123",
                             "trtype": "fc", "trsvcid": "none"},
                    "subsystems": []
                  }]
                }
                """));
    }

    @Test
    void malformedJsonNamesLineColumnAndWhatWasExpected() {
        assertEquals("config.json:4:3: malformed JSON: Unexpected character ('\"' (code 34)):"
                + " was expecting comma to separate Object entries", errors("""
                {
                  "hosts": [],
                  "ports": []
                  "subsystems": []
                }
                """));
    }

    @Test
    void truncatedJsonSaysWhereItEnded() {
        String message = errors("""
                {
                  "hosts": [
                """);
        assertEquals("config.json:3:1: malformed JSON: Unexpected end-of-input: expected close marker for Array"
                + " (start marker at line 2, column 12)", message);
    }

    @Test
    void emptyDocumentIsMalformed() {
        assertEquals("config.json:1:1: malformed JSON: the document is empty", errors("  \n"));
    }

    @Test
    void duplicateNqnsNsidsAndPortIdsAreEachReported() {
        assertEquals("""
                     config.json:3: hosts[1].nqn: host "nqn.2024-01.io.nvmf4j:h" is declared twice (first at line 2)
                     config.json:5: ports[1].portid: port id 1 is used twice (first at line 4)
                     config.json:5: ports[1].addr: listens on 10.0.0.1 port 4420 like ports[0] (line 4)
                     config.json:10: subsystems[0].namespaces[1].nsid: nsid 1 is used twice in this subsystem (first at line 9)
                     config.json:13: subsystems[1].nqn: subsystem "nqn.2024-01.io.nvmf4j:a" is declared twice (first at line 7)\
                     """, errors("""
                {
                  "hosts": [{"nqn": "nqn.2024-01.io.nvmf4j:h"},
                            {"nqn": "nqn.2024-01.io.nvmf4j:h"}],
                  "ports": [{"portid": 1, "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420"}},
                            {"portid": 1, "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420"}}],
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "attr": {"allow_any_host": "1"},
                    "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}},
                                   {"nsid": 1, "enable": 1, "device": {"path": "disk.img"}}]
                  },
                  {
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "attr": {"allow_any_host": "1"}
                  }]
                }
                """));
    }

    @Test
    void portReferencingAnUnknownSubsystem() {
        assertEquals("config.json:5: ports[0].subsystems[1]: subsystem \"nqn.2024-01.io.nvmf4j:typo\" is not"
                + " declared under subsystems", errors("""
                {
                  "ports": [{
                    "portid": 1,
                    "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420"},
                    "subsystems": ["nqn.2024-01.io.nvmf4j:a", "nqn.2024-01.io.nvmf4j:typo"]
                  }],
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"}}]
                }
                """));
    }

    @Test
    void addressRules() {
        assertEquals("""
                     config.json:3: ports[0].addr.trsvcid: must be a port number between 1 and 65535, got "nvme"
                     config.json:4: ports[1].addr.traddr: "target.example.com" is not an IP address (host names are not resolved)
                     config.json:5: ports[2].addr.traddr: "fe80::1" is an IPv6 address but adrfam is ipv4
                     config.json:6: ports[3].addr.traddr: "10.0.0.4" is an IPv4 address but adrfam is ipv6
                     config.json:7: ports[4].addr.adrfam: unsupported address family "ib" (supported: ipv4, ipv6)
                     config.json:8: ports[5].addr.trsvcid: must be a port number between 1 and 65535, got "70000"
                     config.json:9: ports[6].addr.treq: must be one of "not specified", "required", "not required", got "maybe"\
                     """, errors("""
                {
                  "ports": [
                    {"portid": 1, "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "nvme"}},
                    {"portid": 2, "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "target.example.com", "trsvcid": "4420"}},
                    {"portid": 3, "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "fe80::1", "trsvcid": "4420"}},
                    {"portid": 4, "addr": {"trtype": "rdma", "adrfam": "ipv6", "traddr": "10.0.0.4", "trsvcid": "4420"}},
                    {"portid": 5, "addr": {"trtype": "rdma", "adrfam": "ib", "traddr": "10.0.0.5", "trsvcid": "4420"}},
                    {"portid": 6, "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.6", "trsvcid": "70000"}},
                    {"portid": 7, "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.7", "trsvcid": "4420", "treq": "maybe"}}
                  ]
                }
                """));
    }

    @Test
    void missingDeviceFileAndDirectoryAsDevice() throws Exception {
        Files.createDirectory(dir.resolve("adir"));
        assertEquals("""
                     config.json:5: subsystems[0].namespaces[0].device.path: no such file or block device: missing.img
                     config.json:6: subsystems[0].namespaces[1].device.path: is a directory, not a file or block device: adir
                     config.json:8: subsystems[0].namespaces[3].device.path: a file or block device is required when the namespace is enabled\
                     """, errors("""
                {
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"},
                    "namespaces": [
                      {"nsid": 1, "enable": 1, "device": {"path": "missing.img"}},
                      {"nsid": 2, "enable": 1, "device": {"path": "adir"}},
                      {"nsid": 3, "enable": 0, "device": {"path": "disabled-so-not-checked.img"}},
                      {"nsid": 4, "enable": 1, "device": {"path": ""}}
                    ]
                  }]
                }
                """));
    }

    @Test
    void relativeDevicePathResolvesAgainstTheConfigDirectory() throws Exception {
        LoadedConfig loaded = ConfigLoader.standard().parse("""
                {"subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"},
                  "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}}]}]}
                """, "config.json", dir);
        assertEquals(new DeviceConfig.FileDevice(dir.resolve("disk.img")),
                loaded.config().subsystems().getFirst().namespaces().getFirst().backend());
    }

    @Test
    void allowedHostsMustBeDeclaredHosts() {
        assertEquals("config.json:6: subsystems[0].allowed_hosts[1]: host \"nqn.2024-01.io.nvmf4j:stranger\" is"
                + " not declared under hosts (nvmetcli links allowed hosts to declared hosts)", errors("""
                {
                  "hosts": [{"nqn": "nqn.2024-01.io.nvmf4j:h"}],
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "allowed_hosts": ["nqn.2024-01.io.nvmf4j:h",
                                      "nqn.2024-01.io.nvmf4j:stranger"]
                  }]
                }
                """));
    }

    @Test
    void allowAnyHostTogetherWithAllowedHostsIsRefusedAsLinuxDoes() {
        assertEquals("config.json:5: subsystems[0].attr.allow_any_host: is 1 but allowed_hosts lists 1 host(s);"
                + " Linux nvmet refuses both (\"Can't set allow_any_host when explicit hosts are set\"): set"
                + " allow_any_host to \"0\" or empty allowed_hosts", errors("""
                {
                  "hosts": [{"nqn": "nqn.2024-01.io.nvmf4j:h"}],
                  "subsystems": [{
                    "nqn": "nqn.2024-01.io.nvmf4j:a",
                    "attr": {"allow_any_host": "1"},
                    "allowed_hosts": ["nqn.2024-01.io.nvmf4j:h"]
                  }]
                }
                """));
    }

    @Test
    void nobodyAllowedIsAWarning() throws Exception {
        assertEquals("warning: config.json:2: subsystems[0]: no host can connect: allow_any_host is 0 and"
                + " allowed_hosts is empty", warnings("""
                {
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a"}]
                }
                """));
    }

    @Test
    void portParameterRanges() {
        assertEquals("""
                     config.json:3: ports[0].param.inline_data_size: must be between -1 and 16384, got 65536
                     config.json:4: ports[0].param.max_queue_size: must be -1 (transport default) or between 16 and 1024, got 8
                     config.json:5: ports[0].param.mdts: must be -1 (transport default) or between 1 and 12, got 0
                     config.json:6: ports[0].param.pi_enable: is 1: protection information not supported by nvmf4j (serving without it would change what hosts get; --config-allow-unsupported pi ignores it)\
                     """,
                errors("""
                {
                  "ports": [{"portid": 1, "param": {
                    "inline_data_size": "65536",
                    "max_queue_size": "8",
                    "mdts": 0,
                    "pi_enable": "1"},
                    "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420"}}]
                }
                """));
    }

    @Test
    void nqnSyntax() {
        assertEquals("""
                     config.json:2: hosts[0].nqn: must not be empty
                     config.json:3: hosts[1].nqn: NQN "nqn.2024-01.io.nvmf4j:with space" contains a space, which cannot appear in an NQN
                     config.json:4: hosts[2].nqn: NQN is 224 bytes long, at most 223 are allowed
                     config.json:5: subsystems[0].nqn: the discovery subsystem is built in and cannot be configured\
                     """,
                errors("""
                {
                  "hosts": [{"nqn": ""},
                            {"nqn": "nqn.2024-01.io.nvmf4j:with space"},
                            {"nqn": "nqn.2024-01.io.nvmf4j:%s"}],
                  "subsystems": [{"nqn": "nqn.2014-08.org.nvmexpress.discovery", "attr": {"allow_any_host": 1}}]
                }
                """.formatted("x".repeat(224 - "nqn.2024-01.io.nvmf4j:".length()))));
    }

    @Test
    void subsystemAttributes() {
        assertEquals("""
                     config.json:4: subsystems[0].attr.serial: Serial Number must be 1 to 20 characters, got 21
                     config.json:5: subsystems[0].attr.model: Model Number must be printable ASCII, got "mod\u00e8le"
                     config.json:6: subsystems[0].attr.version: must be major.minor or major.minor.tertiary (e.g. "1.3"), got "1.x"
                     config.json:7: subsystems[0].attr.qid_max: must be between 1 and 128, got 0
                     config.json:9: subsystems[0].attr.cntlid_max: must not be below cntlid_min (100), got 50\
                     """,
                errors("""
                {
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {
                    "allow_any_host": "1",
                    "serial": "123456789012345678901",
                    "model": "mod\u00e8le",
                    "version": "1.x",
                    "qid_max": "0",
                    "cntlid_min": "100",
                    "cntlid_max": "50"
                  }}]
                }
                """));
    }

    @Test
    void wrongJsonTypesAndMissingFields() {
        assertEquals("""
                     config.json:2: hosts: must be an array, got an object
                     config.json:3: ports[0].addr: is required
                     config.json:6: subsystems[0].namespaces[0].nsid: must be an integer, got "one"
                     config.json:6: subsystems[0].namespaces[0].enable: must be 1 or 0 (or true/false), got "maybe"\
                     """,
                errors("""
                {
                  "hosts": {"nqn": "nqn.2024-01.io.nvmf4j:h"},
                  "ports": [{"portid": 1}],
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": true},
                    "namespaces": [
                      {"nsid": "one", "enable": "maybe", "device": {"path": "disk.img"}}
                    ]}]
                }
                """));
    }

    @Test
    void unknownFieldsAreWarningsNotErrors() throws Exception {
        assertEquals("""
                     warning: config.json:2: comment: unknown field, ignored
                     warning: config.json:3: subsystems[0].color: unknown field, ignored\
                     """, warnings("""
                {
                  "comment": "made by hand",
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"}, "color": "blue"}]
                }
                """));
    }

    @Test
    void nvmf4jSectionRules() {
        assertEquals("""
                     config.json:5: nvmf4j.provider: unknown provider "rxe" (known: softiwarp, ibverbs, auto)
                     config.json:6: nvmf4j.default_block_size: must be 512 or 4096, got 1024
                     config.json:7: nvmf4j.queues.inline_data_size: must be between 0 and 16384, got 20000
                     config.json:8: nvmf4j.metrics_port: must be between 1 and 65535, got 0
                     config.json:10: nvmf4j.ram_namespaces[0].nsid: nsid 1 is already used in subsystem "nqn.2024-01.io.nvmf4j:a" (line 3)
                     config.json:11: nvmf4j.ram_namespaces[1].size: 1000 bytes is not a multiple of the block size 512
                     config.json:12: nvmf4j.ram_namespaces[2].block_size: must be 512 or 4096, got 520
                     config.json:13: nvmf4j.ram_namespaces[3].subsystem: subsystem "nqn.2024-01.io.nvmf4j:b" is not declared under subsystems
                     config.json:14: nvmf4j.ram_namespaces[4].size: must be a size such as "1G", "512M" or a number of bytes, got "lots"
                     config.json:17: nvmf4j.namespace_options[0].nsid: subsystem "nqn.2024-01.io.nvmf4j:a" has no namespace 9 under subsystems[].namespaces\
                     """, errors("""
                {
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"},
                    "namespaces": [{"nsid": 1, "enable": 1, "device": {"path": "disk.img"}}]}],
                  "nvmf4j": {
                    "provider": "rxe",
                    "default_block_size": 1024,
                    "queues": {"inline_data_size": 20000},
                    "metrics_port": 0,
                    "ram_namespaces": [
                      {"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 1, "size": "1G"},
                      {"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 2, "size": 1000},
                      {"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 3, "size": "1M", "block_size": 520},
                      {"subsystem": "nqn.2024-01.io.nvmf4j:b", "nsid": 1, "size": "1M"},
                      {"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 5, "size": "lots"}
                    ],
                    "namespace_options": [
                      {"subsystem": "nqn.2024-01.io.nvmf4j:a", "nsid": 9, "block_size": 4096}
                    ]
                  }
                }
                """));
    }

    @Test
    void problemsCarryPathLineAndColumn() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.standard().parse("""
                {
                  "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": "1"},
                    "namespaces": [{"nsid": -5, "enable": 1, "device": {"path": "disk.img"}}]}]
                }
                """, "config.json", dir));
        assertEquals(List.of(new ConfigProblem("subsystems[0].namespaces[0].nsid", 3, 29,
                "must be between 1 and 4294967294, got -5")), e.problems());
        assertEquals("config.json", e.source());
    }

    @Test
    void missingFileAndNonObjectDocument() {
        ConfigException missing = assertThrows(ConfigException.class,
                () -> ConfigLoader.standard().load(dir.resolve("nope.json")));
        assertEquals(dir.resolve("nope.json") + ": no such file", missing.getMessage());
        assertEquals("config.json:1: (top level): must be an object, got an array", errors("[]"));
    }
}
