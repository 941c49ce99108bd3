package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.rdma.RdmaTsas;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** nvme discover's text layout and value names, and the keys and types of nvme discover -o json (nvme-cli 2.3). */
class DiscoveryLogTextTest {

    static DiscoveryLogEntry entry(int trtype, int adrfam, int subtype, int treq, int portid, String trsvcid,
            String subnqn, String traddr, int eflags, RdmaTsas tsas) {
        DiscoveryLogEntry e = DiscoveryLogEntry.allocate().trtype(trtype).adrfam(adrfam).subtype(subtype).treq(treq)
                .portId(portid).cntlid(0xFFFF).asqsz(32).eflags(eflags).trsvcid(trsvcid).traddr(traddr);
        e.subsystemNqn(Nqn.parse(subnqn));
        if (tsas != null) {
            e.rdmaTsas(tsas);
        }
        return e;
    }

    static final DiscoveryPage LOG = new DiscoveryPage(7, List.of(
            entry(1, 1, 3, 0, 1, "4420", "nqn.2014-08.org.nvmexpress.discovery", "127.0.0.1", 2,
                    new RdmaTsas(1, 1, 1, 0)),
            entry(1, 1, 2, 4, 1, "4420", "nqn.2026-12.io.nvmf4j:demo", "127.0.0.1", 0, new RdmaTsas(1, 5, 1, 0xffff)),
            entry(3, 2, 1, 2, 2, "8009", "nqn.2014-08.org.nvmexpress.discovery", "::1", 5, null)));

    @Test
    void printsRecordsLikeNvmeDiscoverWithEflagsAndRdmaPkey() {
        StringWriter s = new StringWriter();
        DiscoveryLogText.print(new PrintWriter(s), LOG);
        assertEquals("""

                Discovery Log Number of Records 3, Generation counter 7
                =====Discovery Log Entry 0======
                trtype:  rdma
                adrfam:  ipv4
                subtype: current discovery subsystem
                treq:    not specified
                portid:  1
                trsvcid: 4420
                subnqn:  nqn.2014-08.org.nvmexpress.discovery
                traddr:  127.0.0.1
                eflags:  explicit discovery connections
                rdma_prtype: not specified
                rdma_qptype: connected
                rdma_cms:    rdma-cm
                rdma_pkey: 0x0000
                =====Discovery Log Entry 1======
                trtype:  rdma
                adrfam:  ipv4
                subtype: nvme subsystem
                treq:    not specified, sq flow control disable supported
                portid:  1
                trsvcid: 4420
                subnqn:  nqn.2026-12.io.nvmf4j:demo
                traddr:  127.0.0.1
                eflags:  none
                rdma_prtype: iwarp
                rdma_qptype: connected
                rdma_cms:    rdma-cm
                rdma_pkey: 0xffff
                =====Discovery Log Entry 2======
                trtype:  tcp
                adrfam:  ipv6
                subtype: discovery subsystem referral
                treq:    not required
                portid:  2
                trsvcid: 8009
                subnqn:  nqn.2014-08.org.nvmexpress.discovery
                traddr:  ::1
                eflags:  duplicate discovery information, no cdc connectivity
                sectype: none
                """, s.toString());
    }

    static List<String> fixture(String name) throws IOException {
        try (InputStream in = io.nvmf4j.cli.host.nvmecli.JsonC.class.getResourceAsStream(name)) {
            List<String> keys = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    keys.add(line.strip());
                }
            }
            return keys;
        }
    }

    static List<String> keysAndTypes(JsonNode o) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            JsonNode v = o.get(k);
            out.add(k + " " + (v.isNumber() ? "number" : v.isTextual() ? "string" : v.isArray() ? "array" : "?"));
        }
        return out;
    }

    @Test
    void jsonHasNvmeClisKeysTypesAndOrder() throws Exception {
        JsonNode root = new ObjectMapper().readTree(JsonC.print(DiscoveryLogText.json(LOG)));
        assertEquals(fixture("discover.keys"), keysAndTypes(root));
        assertEquals(fixture("discover-record-rdma.keys"), keysAndTypes(root.get("records").get(1)));
        assertEquals(7, root.get("genctr").asLong());
        JsonNode r = root.get("records").get(1);
        assertEquals("nqn.2026-12.io.nvmf4j:demo", r.get("subnqn").asText());
        assertEquals("iwarp", r.get("rdma_prtype").asText());
        assertEquals(0xffff, r.get("rdma_pkey").asInt());
        assertEquals("none", r.get("eflags").asText());
        assertFalse(root.get("records").get(2).has("rdma_cms"), "TSAS fields only for trtype rdma");
        assertEquals("none", root.get("records").get(2).get("sectype").asText());
    }

    @Test
    void unknownValuesPrintAsLibnvmeDoes() {
        assertEquals("unrecognized", DiscoveryLogText.trtype(9));
        assertEquals("unrecognized", DiscoveryLogText.prtype(0));
        assertEquals("required", DiscoveryLogText.treq(1));
        assertEquals("unrecognized", DiscoveryLogText.treq(3));
        assertEquals("unrecognized", DiscoveryLogText.eflags(8));
        assertEquals("explicit discovery connections, duplicate discovery information, no cdc connectivity",
                DiscoveryLogText.eflags(7));
    }
}
