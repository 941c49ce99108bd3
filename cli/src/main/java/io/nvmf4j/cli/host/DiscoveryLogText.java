package io.nvmf4j.cli.host;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.initiator.DiscoveryLog;
import io.nvmf4j.initiator.DiscoveryRecord;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import java.io.PrintWriter;

/**
 * Prints a discovery log the way {@code nvme discover} does (nvme-cli {@code stdout_discovery_log()}, value names
 * from libnvme's {@code trtypes}, {@code adrfams}, {@code subtypes}, {@code treqs}, {@code prtypes},
 * {@code qptypes} and {@code cms} tables), and as JSON with the keys of {@code nvme discover -o json}.
 */
public final class DiscoveryLogText {

    private DiscoveryLogText() {
    }

    public static void print(PrintWriter out, DiscoveryLog log) {
        out.println();
        out.printf("Discovery Log Number of Records %d, Generation counter %d%n", log.records().size(),
                log.generation());
        int i = 0;
        for (DiscoveryRecord e : log.records()) {
            out.printf("=====Discovery Log Entry %d======%n", i++);
            out.println("trtype:  " + trtype(e.trtype()));
            out.println("adrfam:  " + adrfam(e.adrfam()));
            out.println("subtype: " + subtype(e.subtype()));
            out.println("treq:    " + treq(e.treq()));
            out.println("portid:  " + e.portId());
            out.println("trsvcid: " + e.trsvcid());
            out.println("subnqn:  " + e.subnqn());
            out.println("traddr:  " + e.traddr());
            if (e.trtype() == DiscoveryLogEntry.TRTYPE_RDMA) {
                out.println("rdma_prtype: " + prtype(e.rdmaProviderType()));
                out.println("rdma_qptype: " + qptype(e.rdmaQpType()));
                out.println("rdma_cms:    " + cms(e.rdmaCms()));
                // rdma_pkey: not printed until DiscoveryRecord carries the TSAS pkey (RdmaTsas).
            }
        }
        out.flush();
    }

    public static ObjectNode json(DiscoveryLog log) {
        ObjectNode root = Json.object();
        root.put("genctr", log.generation());
        root.put("numrec", log.records().size());
        ArrayNode records = root.putArray("records");
        for (DiscoveryRecord e : log.records()) {
            ObjectNode r = records.addObject();
            r.put("trtype", trtype(e.trtype()));
            r.put("adrfam", adrfam(e.adrfam()));
            r.put("subtype", subtype(e.subtype()));
            r.put("treq", treq(e.treq()));
            r.put("portid", e.portId());
            r.put("trsvcid", e.trsvcid());
            r.put("subnqn", e.subnqn());
            r.put("traddr", e.traddr());
            r.put("cntlid", e.cntlid());
            r.put("asqsz", e.asqsz());
            if (e.trtype() == DiscoveryLogEntry.TRTYPE_RDMA) {
                r.put("rdma_prtype", prtype(e.rdmaProviderType()));
                r.put("rdma_qptype", qptype(e.rdmaQpType()));
                r.put("rdma_cms", cms(e.rdmaCms()));
            }
        }
        return root;
    }

    // libnvme's arg_str() prints "unrecognized" for a value outside its table.

    static String trtype(int v) {
        return switch (v) {
            case DiscoveryLogEntry.TRTYPE_RDMA -> "rdma";
            case DiscoveryLogEntry.TRTYPE_FC -> "fc";
            case DiscoveryLogEntry.TRTYPE_TCP -> "tcp";
            case DiscoveryLogEntry.TRTYPE_LOOP -> "loop";
            default -> "unrecognized";
        };
    }

    static String adrfam(int v) {
        return switch (v) {
            case 0 -> "pci";
            case DiscoveryLogEntry.ADRFAM_IPV4 -> "ipv4";
            case DiscoveryLogEntry.ADRFAM_IPV6 -> "ipv6";
            case DiscoveryLogEntry.ADRFAM_IB -> "infiniband";
            case DiscoveryLogEntry.ADRFAM_FC -> "fibre-channel";
            case DiscoveryLogEntry.ADRFAM_LOOP -> "loop";
            default -> "unrecognized";
        };
    }

    static String subtype(int v) {
        return switch (v) {
            case DiscoveryLogEntry.SUBTYPE_REFERRAL -> "discovery subsystem referral";
            case DiscoveryLogEntry.SUBTYPE_NVME -> "nvme subsystem";
            case DiscoveryLogEntry.SUBTYPE_CURRENT_DISCOVERY -> "current discovery subsystem";
            default -> "unrecognized";
        };
    }

    /** TREQ bits 1:0 are the secure channel requirement, bit 2 "SQ flow control disable supported". */
    static String treq(int v) {
        String base = switch (v & 0x3) {
            case DiscoveryLogEntry.TREQ_NOT_SPECIFIED -> "not specified";
            case DiscoveryLogEntry.TREQ_REQUIRED -> "required";
            case DiscoveryLogEntry.TREQ_NOT_REQUIRED -> "not required";
            default -> "unrecognized";
        };
        return (v & DiscoveryLogEntry.TREQ_DISABLE_SQFLOW) != 0 ? base + ", sq flow control disable supported" : base;
    }

    static String prtype(int v) {
        return switch (v) {
            case 1 -> "not specified";
            case 2 -> "infiniband";
            case 3 -> "roce";
            case 4 -> "roce-v2";
            case 5 -> "iwarp";
            default -> "unrecognized";
        };
    }

    static String qptype(int v) {
        return switch (v) {
            case 1 -> "connected";
            case 2 -> "datagram";
            default -> "unrecognized";
        };
    }

    static String cms(int v) {
        return v == 1 ? "rdma-cm" : "unrecognized";
    }
}
