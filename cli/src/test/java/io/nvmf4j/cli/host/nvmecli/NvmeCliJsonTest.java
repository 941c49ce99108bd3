package io.nvmf4j.cli.host.nvmecli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.log.SmartHealthLog;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JSON of id-ctrl, id-ns, smart-log and error-log against key lists derived from nvme-cli 2.3's print code
 * (src/test/resources/.../nvmecli/*.keys: key and JSON type, in nvme-cli's order), and json-c's layout.
 */
class NvmeCliJsonTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** "name type" lines of a fixture, comments skipped. */
    static List<String[]> fixture(String name) throws IOException {
        try (InputStream in = NvmeCliJsonTest.class.getResourceAsStream(name)) {
            List<String[]> keys = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    keys.add(line.strip().split(" "));
                }
            }
            return keys;
        }
    }

    static String type(JsonNode n) {
        return n.isNumber() ? "number" : n.isTextual() ? "string" : n.isArray() ? "array" : n.getNodeType().name();
    }

    /** The object's keys in order with their JSON types equal the fixture's, line for line. */
    static void assertKeysAndTypes(String fixture, JsonNode object) throws IOException {
        List<String> expected = new ArrayList<>();
        for (String[] k : fixture(fixture)) {
            expected.add(k[0] + " " + k[1]);
        }
        List<String> actual = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            actual.add(k + " " + type(object.get(k)));
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual), fixture);
    }

    static IdentifyController controller() {
        IdentifyController c = IdentifyController.allocate();
        c.vid(0x1b36).serialNumber("b1a2c3d4").modelNumber("nvmf4j RAM disk").firmwareRevision("0.1.0");
        c.segment().set(ValueLayout.JAVA_BYTE, IdentifyController.OFFSET_NPSS, (byte) 0);
        c.segment().set(ValueLayout.JAVA_INT_UNALIGNED, IdentifyController.OFFSET_VER, 0x10300);
        c.segment().set(ValueLayout.JAVA_BYTE, IdentifyController.OFFSET_SQES, (byte) 0x66);
        c.segment().set(ValueLayout.JAVA_BYTE, IdentifyController.OFFSET_TNVMCAP, (byte) 0x01);
        c.segment().set(ValueLayout.JAVA_BYTE, IdentifyController.OFFSET_TNVMCAP + 9, (byte) 0x01); // 2^72 + 1
        Nqn.parse("nqn.2026-12.io.nvmf4j:demo").encode(c.segment().asSlice(IdentifyController.OFFSET_SUBNQN, 256));
        return c;
    }

    @Test
    void idCtrlIsOneFlatObjectWithEveryKeyOfNvmeCliInItsOrderAndTypes() throws Exception {
        JsonNode root = MAPPER.readTree(JsonC.print(IdCtrlFormat.json(controller().segment())));
        assertKeysAndTypes("id-ctrl.keys", root);
        assertKeysAndTypes("id-ctrl-psd.keys", root.get("psds").get(0));
        assertEquals(1, root.get("psds").size(), "NPSS 0: one power state");
    }

    @Test
    void idCtrlValuesAreNvmeClis() throws Exception {
        JsonNode root = MAPPER.readTree(JsonC.print(IdCtrlFormat.json(controller().segment())));
        assertEquals("b1a2c3d4            ", root.get("sn").asText(), "nvme-cli keeps the space padding (%-.*s)");
        assertEquals("0.1.0   ", root.get("fr").asText());
        assertEquals(6966, root.get("vid").asInt());
        assertEquals(0x10300, root.get("ver").asInt());
        assertEquals(0x66, root.get("sqes").asInt());
        assertEquals(BigInteger.ONE.shiftLeft(72).add(BigInteger.ONE).toString(), root.get("tnvmcap").asText(),
                "uint128 fields are decimal strings");
        assertEquals("00000000-0000-0000-0000-000000000000", root.get("fguid").asText());
        assertEquals("nqn.2026-12.io.nvmf4j:demo", root.get("subnqn").asText());
    }

    @Test
    void aValueWithBit31SetIsNegativeAsNvmeCli23PrintsIt() throws Exception {
        IdentifyController c = controller();
        c.segment().set(ValueLayout.JAVA_INT_UNALIGNED, IdentifyController.OFFSET_SGLS, 0x8010_0005);
        JsonNode root = MAPPER.readTree(JsonC.print(IdCtrlFormat.json(c.segment())));
        assertEquals(0x8010_0005, root.get("sgls").asInt(), "json_object_new_int((int) v)");
    }

    @Test
    void anEmptySubnqnIsLeftOutAsNvmeCliDoes() throws Exception {
        IdentifyController c = IdentifyController.allocate();
        JsonNode root = MAPPER.readTree(JsonC.print(IdCtrlFormat.json(c.segment())));
        assertFalse(root.has("subnqn"));
    }

    @Test
    void jsonIsLaidOutAsJsonCPrettyPrints() {
        String text = JsonC.print(IdCtrlFormat.json(controller().segment()));
        assertTrue(text.startsWith("{\n  \"vid\":6966,\n  \"ssvid\":0,\n  \"sn\":\"b1a2c3d4            \",\n"), text);
        assertTrue(text.contains("  \"psds\":[\n    {\n      \"max_power\":0,\n"), text);
        assertTrue(text.endsWith("    }\n  ]\n}\n"), text);
        assertTrue(text.contains("\"subnqn\":\"nqn.2026-12.io.nvmf4j:demo\""), "no escaped slash, no spaces");
    }

    @Test
    void emptyArraysAndEscapesAreJsonCs() {
        java.util.Map<String, Object> o = JsonC.object();
        o.put("records", List.of());
        o.put("s", "a/b\"c\\\u0001");
        assertEquals("{\n  \"records\":[\n  ],\n  \"s\":\"a/b\\\"c\\\\\\u0001\"\n}\n", JsonC.print(o));
        assertEquals("{\n}\n", JsonC.print(JsonC.object()));
    }

    static IdentifyNamespace namespace(int nsfeat) {
        IdentifyNamespace ns = IdentifyNamespace.allocate();
        ns.nsze(32768).ncap(32768).nuse(32768).nsfeat(nsfeat).nlbaf(1).flbas(0);
        MemorySegment s = ns.segment();
        s.set(ValueLayout.JAVA_BYTE, IdentifyNamespace.OFFSET_LBAF + 2, (byte) 9);
        s.set(ValueLayout.JAVA_BYTE, IdentifyNamespace.OFFSET_LBAF + 6, (byte) 12);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, IdentifyNamespace.OFFSET_ANAGRPID, 1);
        for (int i = 0; i < 16; i++) {
            s.set(ValueLayout.JAVA_BYTE, IdentifyNamespace.OFFSET_NGUID + i, (byte) (0xa0 + i));
        }
        s.set(ValueLayout.JAVA_BYTE, IdentifyNamespace.OFFSET_EUI64, (byte) 0x02);
        return ns;
    }

    @Test
    void idNsHasNguidEui64AnagrpidAndLbafsWithNvmeClisKeysAndTypes() throws Exception {
        JsonNode root = MAPPER.readTree(JsonC.print(IdNsFormat.json(namespace(0x10).segment())));
        assertKeysAndTypes("id-ns.keys", root);
        assertKeysAndTypes("id-ns-lbaf.keys", root.get("lbafs").get(1));
        assertEquals("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", root.get("nguid").asText());
        assertEquals("0200000000000000", root.get("eui64").asText());
        assertEquals(1, root.get("anagrpid").asInt());
        assertEquals(32768, root.get("nsze").asLong());
        assertEquals(2, root.get("lbafs").size(), "nlbaf is 0's based");
        assertEquals(12, root.get("lbafs").get(1).get("ds").asInt());
        assertEquals("0", root.get("nvmcap").asText());
    }

    @Test
    void idNsLeavesOutTheOptimalIoFieldsWithoutNsfeatBit4AsNvmeCliDoes() throws Exception {
        JsonNode root = MAPPER.readTree(JsonC.print(IdNsFormat.json(namespace(0).segment())));
        assertFalse(root.has("npwg"));
        assertFalse(root.has("nows"));
        assertTrue(root.has("mssrl"));
    }

    @Test
    void smartLogHasNvmeClisKeysAndTypes() throws Exception {
        SmartHealthLog log = SmartHealthLog.allocate().compositeTemperature(310)
                .dataUnitsRead(BigInteger.valueOf(1234));
        JsonNode root = MAPPER.readTree(JsonC.print(SmartLogFormat.json(log.segment())));
        assertKeysAndTypes("smart-log.keys", root);
        assertEquals(310, root.get("temperature").asInt());
        assertEquals("1234", root.get("data_units_read").asText());
    }

    @Test
    void errorLogEntriesHaveNvmeClisKeysAndTypes() throws Exception {
        MemorySegment log = MemorySegment.ofArray(new byte[2 * ErrorLogFormat.ENTRY_SIZE]);
        log.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 3);
        log.set(ValueLayout.JAVA_SHORT_UNALIGNED, 12, (short) (0x4080 << 1 | 1));
        JsonNode root = MAPPER.readTree(JsonC.print(ErrorLogFormat.json(log, 2)));
        assertEquals(2, root.get("errors").size());
        JsonNode e = root.get("errors").get(0);
        assertKeysAndTypes("error-log-entry.keys", e);
        assertEquals(3, e.get("error_count").asInt());
        assertEquals(0x4080, e.get("status_field").asInt());
        assertEquals(1, e.get("phase_tag").asInt());
    }

    @Test
    void idCtrlTextHasNvmeClisLayout() {
        StringWriter s = new StringWriter();
        IdCtrlFormat.text(new PrintWriter(s), controller().segment());
        String t = s.toString();
        assertTrue(t.startsWith("NVME Identify Controller:\nvid       : 0x1b36\nssvid     : 0\n"), t);
        assertTrue(t.contains("\nver       : 0x10300\n"), t);
        assertTrue(t.contains("\nps    0 : mp:0.00W operational enlat:0 exlat:0 rrt:0 rrl:0\n"), t);
    }
}
