package io.nvmf4j.cli.host;

import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.rdma.RdmaTsas;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints a discovery log the way {@code nvme discover} of nvme-cli 2.3 does ({@code print_discovery_log()} and
 * {@code json_discovery_log()} in its fabrics.c; value names from libnvme's {@code trtypes}, {@code adrfams},
 * {@code subtypes}, {@code treqs}, {@code eflags_strings}, {@code prtypes}, {@code qptypes}, {@code cms} and
 * {@code sectypes} tables): the same lines, and JSON with the same keys and value types.
 */
public final class DiscoveryLogText {

    private DiscoveryLogText() {
    }

    public static void print(PrintWriter out, DiscoveryPage log) {
        out.println();
        out.printf("Discovery Log Number of Records %d, Generation counter %d%n", log.entries().size(),
                log.genctr());
        int i = 0;
        for (DiscoveryLogEntry e : log.entries()) {
            out.printf("=====Discovery Log Entry %d======%n", i++);
            out.println("trtype:  " + trtype(e.trtype()));
            out.println("adrfam:  " + (e.traddr().isEmpty() ? "" : adrfam(e.adrfam())));
            out.println("subtype: " + subtype(e.subtype()));
            out.println("treq:    " + treq(e.treq()));
            out.println("portid:  " + e.portId());
            out.println("trsvcid: " + e.trsvcid());
            out.println("subnqn:  " + e.subnqn());
            out.println("traddr:  " + e.traddr());
            out.println("eflags:  " + eflags(e.eflags()));
            if (e.trtype() == DiscoveryLogEntry.TRTYPE_RDMA) {
                RdmaTsas t = e.rdmaTsas();
                out.println("rdma_prtype: " + prtype(t.prtype()));
                out.println("rdma_qptype: " + qptype(t.qptype()));
                out.println("rdma_cms:    " + cms(t.cms()));
                out.printf("rdma_pkey: 0x%04x%n", t.pkey());
            } else if (e.trtype() == DiscoveryLogEntry.TRTYPE_TCP) {
                out.println("sectype: " + sectype(e.tcpTsas().sectype()));
            }
        }
        out.flush();
    }

    /** {@code nvme discover -o json}: genctr (a number), records[] with nvme-cli's keys in its order. */
    public static Map<String, Object> json(DiscoveryPage log) {
        Map<String, Object> root = JsonC.object();
        root.put("genctr", log.genctr());
        List<Object> records = new ArrayList<>();
        for (DiscoveryLogEntry e : log.entries()) {
            Map<String, Object> r = JsonC.object();
            r.put("trtype", trtype(e.trtype()));
            r.put("adrfam", adrfam(e.adrfam()));
            r.put("subtype", subtype(e.subtype()));
            r.put("treq", treq(e.treq()));
            r.put("portid", e.portId());
            r.put("trsvcid", e.trsvcid());
            r.put("subnqn", e.subnqn());
            r.put("traddr", e.traddr());
            r.put("eflags", eflags(e.eflags()));
            if (e.trtype() == DiscoveryLogEntry.TRTYPE_RDMA) {
                RdmaTsas t = e.rdmaTsas();
                r.put("rdma_prtype", prtype(t.prtype()));
                r.put("rdma_qptype", qptype(t.qptype()));
                r.put("rdma_cms", cms(t.cms()));
                r.put("rdma_pkey", t.pkey());
            } else if (e.trtype() == DiscoveryLogEntry.TRTYPE_TCP) {
                r.put("sectype", sectype(e.tcpTsas().sectype()));
            }
            records.add(r);
        }
        root.put("records", records);
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
        if (v > 7 || (v & 0x3) == 3) {
            return "unrecognized";
        }
        String base = switch (v & 0x3) {
            case DiscoveryLogEntry.TREQ_NOT_SPECIFIED -> "not specified";
            case DiscoveryLogEntry.TREQ_REQUIRED -> "required";
            default -> "not required";
        };
        return (v & DiscoveryLogEntry.TREQ_DISABLE_SQFLOW) != 0 ? base + ", sq flow control disable supported" : base;
    }

    /**
     * EFLAGS (NVMe-oF 1.1 TP 8013/8014): bit 0 duplicate returned information, bit 1 explicit persistent
     * connection support, bit 2 no CDC connectivity; libnvme's {@code eflags_strings} name each combination.
     */
    static String eflags(int v) {
        if (v == 0) {
            return "none";
        }
        if (v > 7) {
            return "unrecognized";
        }
        List<String> parts = new ArrayList<>(3);
        if ((v & 2) != 0) {
            parts.add("explicit discovery connections");
        }
        if ((v & 1) != 0) {
            parts.add("duplicate discovery information");
        }
        if ((v & 4) != 0) {
            parts.add("no cdc connectivity");
        }
        return String.join(", ", parts);
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

    static String sectype(int v) {
        return switch (v) {
            case 0 -> "none";
            case 1 -> "tls";
            case 2 -> "tls13";
            default -> "unrecognized";
        };
    }
}
