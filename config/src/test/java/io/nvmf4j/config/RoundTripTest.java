package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code toJson()} writes what nvmetcli writes, and what it writes loads back to the same model. */
class RoundTripTest {

    @TempDir
    Path dir;

    @Test
    void fullNvmetcliDumpSurvivesWriteAndReload() throws Exception {
        ConfigLoader loader = ConfigLoader.withoutDevicePathChecks();
        TargetConfig first = loader.load(NvmetcliExamplesTest.resource("rdma-full.json")).config();
        Path written = Files.writeString(dir.resolve("saved.json"), first.toJson());
        TargetConfig second = loader.load(written).config();
        assertEquals(first, second);
        assertEquals(first.toJson(), second.toJson(), "writing is deterministic");
    }

    @Test
    void ramNamespacesAndBlockSizesGoToTheNvmf4jSectionAndComeBack() throws Exception {
        Path disk = Files.write(dir.resolve("disk.img"), new byte[4096]);
        TargetConfig first = QuickConfig.builder().nqn("nqn.2024-01.io.nvmf4j:x").file(disk).ram("3M")
                .metricsPort(9464).build().config();
        String json = first.toJson();
        TargetConfig second = ConfigLoader.standard().parse(json, "saved.json", dir).config();
        assertEquals(first, second);
        JsonNode ram = new ObjectMapper().readTree(json).get("nvmf4j").get("ram_namespaces");
        assertEquals(new ObjectMapper().readTree("""
                [{"ana_grpid": 1, "block_size": 512, "enable": 1, "nsid": 2, "size": "3M",
                  "subsystem": "nqn.2024-01.io.nvmf4j:x"}]
                """), ram);
        assertEquals(1, new ObjectMapper().readTree(json).get("subsystems").get(0).get("namespaces").size(),
                "only the file namespace is in nvmetcli's list");
    }

    @Test
    void writtenFileHasNvmetcliLayout() throws Exception {
        Path disk = Files.write(dir.resolve("disk.img"), new byte[4096]);
        TargetConfig c = QuickConfig.builder().nqn("nqn.2024-01.io.nvmf4j:x").file(disk).build().config();
        String expected = """
                {
                  "hosts": [],
                  "nvmf4j": {
                    "backend_io": {
                      "mode": "auto",
                      "timeout_ms": 20000
                    },
                    "buffer_pool": {
                      "buffer_size": "128K",
                      "count": 256
                    },
                    "default_block_size": 512,
                    "keep_alive": {
                      "discovery_kato_ms": 120000
                    },
                    "namespace_options": [],
                    "poll_groups": {
                      "count": 0,
                      "spin_budget_us": 100
                    },
                    "provider": "auto",
                    "queues": {
                      "inline_data_size": 4096,
                      "max_queue_size": 128,
                      "mdts": 8
                    },
                    "ram_namespaces": []
                  },
                  "ports": [
                    {
                      "addr": {
                        "adrfam": "ipv4",
                        "traddr": "127.0.0.1",
                        "treq": "not specified",
                        "trsvcid": "4420",
                        "trtype": "rdma"
                      },
                      "ana_groups": [],
                      "param": {
                        "inline_data_size": "-1",
                        "max_queue_size": "-1",
                        "mdts": "-1"
                      },
                      "portid": 1,
                      "referrals": [],
                      "subsystems": [
                        "nqn.2024-01.io.nvmf4j:x"
                      ]
                    }
                  ],
                  "subsystems": [
                    {
                      "allowed_hosts": [],
                      "attr": {
                        "allow_any_host": "1",
                        "cntlid_max": "65519",
                        "cntlid_min": "1"
                      },
                      "namespaces": [
                        {
                          "ana_grpid": 1,
                          "device": {
                            "path": "%s"
                          },
                          "enable": 1,
                          "nsid": 1
                        }
                      ],
                      "nqn": "nqn.2024-01.io.nvmf4j:x"
                    }
                  ]
                }
                """.formatted(disk.toAbsolutePath());
        assertEquals(expected, c.toJson());
    }
}
