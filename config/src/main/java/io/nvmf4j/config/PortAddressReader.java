package io.nvmf4j.config;

import io.nvmf4j.config.JsonTree.JObject;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A port's {@code addr} group for the transports nvmf4j serves, rdma and tcp. Both are IP transports in Linux
 * nvmet ({@code nvmet_rdma_add_port()} and {@code nvmet_tcp_add_port()} accept only the ipv4 and ipv6 address
 * families and hand traddr and trsvcid to {@code inet_pton_with_scope()}), so they share the address rules; they
 * differ in {@code tsas}, whose values depend on the transport ({@code nvmet_addr_tsas_store()}), and in tcp's
 * default service id.
 */
final class PortAddressReader extends FieldReader {

    private static final Set<String> ADDR_FIELDS = Set.of("trtype", "adrfam", "traddr", "trsvcid", "treq", "tsas");
    private static final List<String> TREQ_VALUES = List.of("not specified", "required", "not required");
    /**
     * A tcp port without trsvcid listens on the IANA-assigned NVMe-oF port ({@link QuickConfig#DEFAULT_PORT},
     * NVMe-oF 1.1, 7.4.8), as the quick form does; nvmet itself has no default and fails to enable such a port.
     */
    static final String TCP_DEFAULT_TRSVCID = Integer.toString(QuickConfig.DEFAULT_PORT);

    PortAddressReader(FieldReader shared) {
        super(shared);
    }

    /** The address, or null when it has problems (each already reported with its field and line). */
    PortAddress readAddress(JsonTree node, String ap) {
        JObject addr = object(node, ap);
        if (addr == null) {
            return null;
        }
        unknownFields(addr, ap, ADDR_FIELDS);
        Map<String, JsonTree> f = addr.fields();
        JsonTree trtypeNode = required(addr, "trtype", ap);
        String trtype = trtypeNode == null ? null : string(trtypeNode, ap + ".trtype");
        if (trtype == null) {
            return null;
        }
        if (!trtype.equals(PortAddress.TRTYPE_RDMA) && !trtype.equals(PortAddress.TRTYPE_TCP)) {
            // The rest of an fc/loop address has other rules; checking it would only add noise.
            error(trtypeNode, ap + ".trtype", "unsupported transport \"" + trtype + "\" (supported: rdma, tcp)");
            return null;
        }
        boolean tcp = trtype.equals(PortAddress.TRTYPE_TCP);
        JsonTree adrfamNode = required(addr, "adrfam", ap);
        String adrfam = adrfamNode == null ? null : string(adrfamNode, ap + ".adrfam");
        if (adrfam != null && !adrfam.equals("ipv4") && !adrfam.equals("ipv6")) {
            error(adrfamNode, ap + ".adrfam", "unsupported address family \"" + adrfam
                    + "\" (supported: ipv4, ipv6)");
            adrfam = null;
        }
        JsonTree traddrNode = required(addr, "traddr", ap);
        String traddr = traddrNode == null ? null : string(traddrNode, ap + ".traddr");
        if (traddr != null) {
            traddr = checkAddress(traddrNode, ap + ".traddr", traddr, adrfam);
        }
        String trsvcid = tcp && (!f.containsKey("trsvcid") || isNull(f.get("trsvcid")))
                ? TCP_DEFAULT_TRSVCID
                : serviceId(required(addr, "trsvcid", ap), ap + ".trsvcid");
        String treq = readTreq(f.get("treq"), ap + ".treq");
        if (f.containsKey("tsas") && !isNull(f.get("tsas"))) {
            if (tcp) {
                checkTcpTsas(f.get("tsas"), ap + ".tsas");
            } else {
                checkRdmaTsas(f.get("tsas"), ap + ".tsas");
            }
        }
        if (adrfam == null || traddr == null || trsvcid == null) {
            return null;
        }
        return new PortAddress(trtype, adrfam, traddr, trsvcid, treq);
    }

    /** A port number: {@code inet_pton_with_scope()} reads trsvcid with {@code kstrtou16()}. */
    private String serviceId(JsonTree node, String path) {
        String trsvcid = node == null ? null : string(node, path);
        if (trsvcid == null) {
            return null;
        }
        Long port = Values.parseInteger(trsvcid);
        if (port == null || port < 1 || port > 65535 || !trsvcid.strip().matches("[0-9]+")) {
            error(node, path, "must be a port number between 1 and 65535, got \"" + trsvcid + "\"");
            return null;
        }
        return Long.toString(port);
    }

    /**
     * TREQ as {@code nvmet_addr_treq_store()} takes it, for both transports. "required" means a secure channel is
     * required (NVMe-oF 1.1 Discovery Log Entry TREQ bits 1:0); serving the port without one would advertise and
     * give plain connections.
     */
    private String readTreq(JsonTree node, String path) {
        if (node == null) {
            return PortAddress.TREQ_NOT_SPECIFIED;
        }
        String t = string(node, path);
        if (t != null && !TREQ_VALUES.contains(t)) {
            error(node, path, "must be one of \"not specified\", \"required\", \"not required\", got \"" + t + "\"");
        } else if (t != null && t.equals("required")) {
            unsupported(node, path, UnsupportedFeature.TLS, "is \"required\"");
        } else if (t != null) {
            return t;
        }
        return PortAddress.TREQ_NOT_SPECIFIED;
    }

    /**
     * Linux nvmet_addr_tsas_show(): "connected"/"datagram" (the RDMA QP type) for rdma, "" when unset. nvmf4j is a
     * connected-QP RDMA transport without TLS.
     */
    private void checkRdmaTsas(JsonTree node, String path) {
        String t = string(node, path);
        if (t != null && t.strip().equals("tls1.3")) {
            unsupported(node, path, UnsupportedFeature.TLS, "is \"tls1.3\"");
        } else if (t != null && !t.isBlank() && !t.strip().equals("connected") && !t.strip().equals("none")) {
            error(node, path, "must be \"connected\" (RDMA reliable connected QPs) or empty, got \"" + t + "\"");
        }
    }

    /**
     * Linux nvmet_addr_tsas_store() for tcp: "none" or "tls1.3" (the NVMe/TCP security type, NVMe-oF 1.1
     * Discovery Log Entry TSAS). nvmf4j offers no TLS, so "tls1.3" would have hosts expect a handshake that
     * never comes; "none" and empty are plain NVMe/TCP.
     */
    private void checkTcpTsas(JsonTree node, String path) {
        String t = string(node, path);
        if (t != null && t.strip().equals("tls1.3")) {
            unsupported(node, path, UnsupportedFeature.TLS, "is \"tls1.3\"");
        } else if (t != null && !t.isBlank() && !t.strip().equals("none")) {
            error(node, path, "must be \"none\" (NVMe/TCP without TLS) or empty, got \"" + t + "\"");
        }
    }

    private String checkAddress(JsonTree node, String path, String traddr, String adrfam) {
        boolean v4 = isLiteral(traddr, true);
        boolean v6 = !v4 && isLiteral(traddr, false);
        if (!v4 && !v6) {
            error(node, path, "\"" + traddr + "\" is not an IP address (host names are not resolved)");
            return null;
        }
        if (adrfam != null && adrfam.equals("ipv4") && !v4) {
            error(node, path, "\"" + traddr + "\" is an IPv6 address but adrfam is ipv4");
            return null;
        }
        if (adrfam != null && adrfam.equals("ipv6") && !v6) {
            error(node, path, "\"" + traddr + "\" is an IPv4 address but adrfam is ipv6");
            return null;
        }
        return traddr;
    }

    private static boolean isLiteral(String text, boolean v4) {
        try {
            if (v4) {
                Inet4Address.ofLiteral(text);
            } else {
                Inet6Address.ofLiteral(text);
            }
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
