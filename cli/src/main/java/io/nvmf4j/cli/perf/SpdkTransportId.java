package io.nvmf4j.cli.perf;

import io.nvmf4j.cli.host.UsageProblem;
import java.util.Locale;

/**
 * SPDK's transport ID string, as {@code spdk_nvme_perf -r} takes it and {@code spdk_nvme_transport_id_parse()}
 * reads it: {@code key:value} (or {@code key=value}) pairs separated by blanks, keys case-insensitive, e.g.
 * {@code 'trtype:RDMA adrfam:IPv4 traddr:192.168.0.2 trsvcid:4420 subnqn:nqn.2016-06.io.spdk:cnode1'}; perf also
 * takes {@code ns:} (the namespace) and {@code hostnqn:}.
 *
 * @param traddr  transport address, or null
 * @param trsvcid port, or null
 * @param subnqn  subsystem NQN, or null
 * @param hostnqn host NQN, or null
 * @param nsid    namespace, or null
 * @param trtype  "rdma" or "tcp" (trtype:RDMA, trtype:TCP), or null
 */
public record SpdkTransportId(String traddr, Integer trsvcid, String subnqn, String hostnqn, Long nsid,
                              String trtype) {

    public static SpdkTransportId parse(String text) {
        String traddr = null;
        Integer trsvcid = null;
        String subnqn = null;
        String hostnqn = null;
        String trtype = null;
        Long nsid = null;
        for (String pair : text.strip().split("[ \t\n]+")) {
            if (pair.isEmpty()) {
                continue;
            }
            int sep = firstSeparator(pair);
            if (sep <= 0 || sep == pair.length() - 1) {
                throw new UsageProblem("perf: -r '" + text + "': '" + pair + "' is not key:value");
            }
            String key = pair.substring(0, sep).toLowerCase(Locale.ROOT);
            String value = pair.substring(sep + 1);
            switch (key) {
                case "trtype" -> {
                    if (!value.equalsIgnoreCase("rdma") && !value.equalsIgnoreCase("tcp")) {
                        throw new UsageProblem("perf: -r trtype:" + value + " is not supported: nvmf4j speaks NVMe "
                                + "over RDMA and TCP (trtype:RDMA, trtype:TCP)");
                    }
                    trtype = value.toLowerCase(Locale.ROOT);
                }
                case "adrfam" -> {
                    if (!value.equalsIgnoreCase("ipv4") && !value.equalsIgnoreCase("ipv6")) {
                        throw new UsageProblem("perf: -r adrfam:" + value + " is not supported (IPv4, IPv6)");
                    }
                }
                case "traddr" -> traddr = value;
                case "trsvcid" -> trsvcid = number(text, key, value);
                case "subnqn" -> subnqn = value;
                case "hostnqn" -> hostnqn = value;
                case "ns" -> nsid = (long) number(text, key, value);
                default -> throw new UsageProblem("perf: -r '" + text + "': unknown transport ID key '" + key
                        + "' (nvmf4j takes trtype, adrfam, traddr, trsvcid, subnqn, hostnqn, ns)");
            }
        }
        if (traddr == null) {
            throw new UsageProblem("perf: -r '" + text + "' names no traddr");
        }
        return new SpdkTransportId(traddr, trsvcid, subnqn, hostnqn, nsid, trtype);
    }

    /** The first ':' or '=': an IPv6 traddr keeps its colons after the key's. */
    private static int firstSeparator(String pair) {
        int colon = pair.indexOf(':');
        int equals = pair.indexOf('=');
        if (colon < 0) {
            return equals;
        }
        return equals < 0 ? colon : Math.min(colon, equals);
    }

    private static int number(String text, String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new UsageProblem("perf: -r '" + text + "': " + key + ":" + value + " is not a number");
        }
    }
}
