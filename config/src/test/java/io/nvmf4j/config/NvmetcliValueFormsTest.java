package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Values as nvmetcli and the kernel accept them: strings or numbers, kstrtobool() words, kstrtoint(base 0) hex,
 * NGUIDs with ':' or '-' separators.
 */
class NvmetcliValueFormsTest {

    private static TargetConfig load(String json) throws ConfigException {
        return ConfigLoader.withoutDevicePathChecks().parse(json, "config.json", Path.of("/")).config();
    }

    @Test
    void booleansAcceptKstrtoboolForms() {
        for (String t : new String[] {"1", "y", "Y", "yes", "t", "true", "on"}) {
            assertTrue(Values.parseBoolean(t), t);
        }
        for (String f : new String[] {"0", "n", "no", "f", "False", "off"}) {
            assertFalse(Values.parseBoolean(f), f);
        }
        assertNull(Values.parseBoolean("maybe"));
        assertNull(Values.parseBoolean(""));
    }

    @Test
    void integersAcceptDecimalAndHexAsKstrtoint() {
        assertEquals(4420L, Values.parseInteger("4420"));
        assertEquals(-1L, Values.parseInteger("-1"));
        assertEquals(0xFFEFL, Values.parseInteger("0xffef"));
        assertNull(Values.parseInteger("12abc"));
        assertNull(Values.parseInteger(""));
        assertNull(Values.parseInteger("99999999999999999999"));
    }

    @Test
    void sizesUseBinaryUnits() {
        assertEquals(1L << 30, Values.parseSize("1G"));
        assertEquals(512L << 20, Values.parseSize("512M"));
        assertEquals(64L << 10, Values.parseSize("64KiB"));
        assertEquals(1048576L, Values.parseSize("1048576"));
        assertNull(Values.parseSize("1.5G"));
        assertNull(Values.parseSize("-1G"));
        assertNull(Values.parseSize("99999999999T"));
        assertEquals("1G", Values.formatSize(1L << 30));
        assertEquals("3M", Values.formatSize(3L << 20));
        assertEquals("4097", Values.formatSize(4097));
    }

    @Test
    void numbersAndStringsAreInterchangeable() throws Exception {
        TargetConfig c = load("""
                {"ports": [{"portid": "0x10", "subsystems": ["nqn.2024-01.io.nvmf4j:a"],
                            "addr": {"trtype": "rdma", "adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": 4420},
                            "param": {"inline_data_size": 8192}}],
                 "subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a", "attr": {"allow_any_host": true, "cntlid_max": 100},
                   "namespaces": [{"nsid": "7", "enable": "1", "ana_grpid": "1",
                                   "device": {"path": "/dev/sdb", "nguid": "ef:90:68:9c:6c:46:d4:4c:89:c1:40:67:80:13:09:a8"}}]}]}
                """);
        PortConfig port = c.ports().getFirst();
        assertEquals(16, port.portid());
        assertEquals("4420", port.addr().trsvcid());
        assertEquals(8192, port.param().inlineDataSize());
        SubsystemConfig s = c.subsystems().getFirst();
        assertTrue(s.attr().allowAnyHost());
        assertEquals(100, s.attr().cntlidMax());
        NamespaceConfig ns = s.namespace(7).orElseThrow();
        assertTrue(ns.enable());
        assertArrayEquals(HexFormat.of().parseHex("ef90689c6c46d44c89c14067801309a8"), ns.nguid());
    }

    @Test
    void oldNvmetcliPortEnableAndNamespaceWithoutEnableLoad() throws Exception {
        // nvmetcli's early nvmet.json: "enable" on the port; a namespace without "enable" stays disabled.
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks().parse("""
                {
                  "ports": [{"addr": {"adrfam": "ipv4", "traddr": "192.168.7.68", "treq": "not specified",
                             "trsvcid": "1023", "trtype": "rdma"}, "enable": 1, "portid": 2}],
                  "subsystems": [{"namespaces": [{"device": {"path": "/dev/ram0"}, "nsid": 2}],
                    "nqn": "nqn.2014-08.org.nvmexpress:NVMf:uuid:77dca664-0d3e-4f67-b8b2-04c70e3f991d"}]
                }
                """, "nvmet.json", null);
        assertFalse(loaded.config().subsystems().getFirst().namespace(2).orElseThrow().enable());
        assertEquals("""
                     warning: nvmet.json:4: subsystems[0]: no host can connect: allow_any_host is 0 and allowed_hosts is empty
                     warning: nvmet.json:4: subsystems[0].namespaces[0]: no "enable": the namespace stays disabled (as nvmetcli leaves it)\
                     """,
                loaded.formatWarnings());
    }

    @Test
    void duplicateJsonKeyIsAWarningAndTheLastOneWins() throws Exception {
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks().parse("""
                {"subsystems": [{"nqn": "nqn.2024-01.io.nvmf4j:a",
                  "attr": {"allow_any_host": "0",
                           "allow_any_host": "1"}}]}
                """, "config.json", null);
        assertTrue(loaded.config().subsystems().getFirst().attr().allowAnyHost());
        assertEquals("warning: config.json:3: subsystems[0].attr.allow_any_host: given more than once in the same"
                + " object (the last one is used)", loaded.formatWarnings());
    }
}
