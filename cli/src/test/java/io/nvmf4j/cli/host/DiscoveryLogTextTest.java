package io.nvmf4j.cli.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nvmf4j.initiator.DiscoveryLog;
import io.nvmf4j.initiator.DiscoveryRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** nvme discover's text layout and value names, and the JSON keys of nvme discover -o json. */
class DiscoveryLogTextTest {

    static final DiscoveryLog LOG = new DiscoveryLog(7, List.of(
            new DiscoveryRecord(1, 1, 3, 0, 1, 0xFFFF, 32, "4420", "nqn.2014-08.org.nvmexpress.discovery",
                    "127.0.0.1", 1, 1, 1),
            new DiscoveryRecord(1, 1, 2, 4, 1, 0xFFFF, 32, "4420", "nqn.2026-12.io.nvmf4j:demo", "127.0.0.1", 1, 5,
                    1),
            new DiscoveryRecord(3, 2, 1, 2, 2, 0xFFFF, 32, "8009", "nqn.2014-08.org.nvmexpress.discovery", "::1", 0,
                    0, 0)));

    @Test
    void printsRecordsLikeNvmeDiscover() {
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
                rdma_prtype: not specified
                rdma_qptype: connected
                rdma_cms:    rdma-cm
                =====Discovery Log Entry 1======
                trtype:  rdma
                adrfam:  ipv4
                subtype: nvme subsystem
                treq:    not specified, sq flow control disable supported
                portid:  1
                trsvcid: 4420
                subnqn:  nqn.2026-12.io.nvmf4j:demo
                traddr:  127.0.0.1
                rdma_prtype: iwarp
                rdma_qptype: connected
                rdma_cms:    rdma-cm
                =====Discovery Log Entry 2======
                trtype:  tcp
                adrfam:  ipv6
                subtype: discovery subsystem referral
                treq:    not required
                portid:  2
                trsvcid: 8009
                subnqn:  nqn.2014-08.org.nvmexpress.discovery
                traddr:  ::1
                """, s.toString());
    }

    @Test
    void jsonHasNvmeClisKeys() throws Exception {
        JsonNode root = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(DiscoveryLogText.json(LOG)));
        assertEquals(7, root.get("genctr").asLong());
        assertEquals(3, root.get("records").size());
        JsonNode r = root.get("records").get(1);
        assertEquals("rdma", r.get("trtype").asText());
        assertEquals("nvme subsystem", r.get("subtype").asText());
        assertEquals("4420", r.get("trsvcid").asText());
        assertEquals("nqn.2026-12.io.nvmf4j:demo", r.get("subnqn").asText());
        assertEquals("iwarp", r.get("rdma_prtype").asText());
        assertEquals("rdma-cm", r.get("rdma_cms").asText());
        assertEquals(false, root.get("records").get(2).has("rdma_cms"), "TSAS fields only for trtype rdma");
    }

    @Test
    void unknownValuesPrintAsLibnvmeDoes() {
        assertEquals("unrecognized", DiscoveryLogText.trtype(9));
        assertEquals("unrecognized", DiscoveryLogText.prtype(0));
        assertEquals("required", DiscoveryLogText.treq(1));
    }
}
