package io.nvmf4j.config;

import io.nvmf4j.config.JsonTree.JObject;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code ports} list: Linux {@code nvmet_port} configfs groups as nvmetcli dumps them ({@code addr_*},
 * {@code param_*}, the {@code subsystems} links, referrals and ANA groups).
 */
final class PortReader extends FieldReader {

    private static final Set<String> PORT_FIELDS = Set.of("portid", "addr", "param", "subsystems", "referrals",
            "ana_groups", "enable");
    private static final Set<String> ADDR_FIELDS = Set.of("trtype", "adrfam", "traddr", "trsvcid", "treq", "tsas");
    private static final Set<String> PARAM_FIELDS = Set.of("inline_data_size", "max_queue_size", "mdts",
            "pi_enable");
    private static final Set<String> REFERRAL_FIELDS = Set.of("name", "addr", "enable", "portid");
    private static final Set<String> ANA_GROUP_FIELDS = Set.of("grpid", "ana");
    private static final List<String> TREQ_VALUES = List.of("not specified", "required", "not required");
    private static final List<String> ANA_STATES = List.of("optimized", "non-optimized", "inaccessible",
            "persistent-loss", "change");

    PortReader(FieldReader shared) {
        super(shared);
    }

    List<PortConfig> readPorts(JObject root, Map<String, SubsystemDraft> subsystems) {
        List<PortConfig> ports = new ArrayList<>();
        Map<Long, JsonTree> portIds = new HashMap<>();
        Map<String, String> listenAddresses = new HashMap<>();
        List<JsonTree> items = list(root, "ports", "ports");
        for (int i = 0; i < items.size(); i++) {
            String p = "ports[" + i + "]";
            JObject o = object(items.get(i), p);
            if (o == null) {
                continue;
            }
            if (otherTransport(o, p)) {
                continue;
            }
            unknownFields(o, p, PORT_FIELDS);
            JsonTree idNode = required(o, "portid", p);
            Long portid = idNode == null ? null : integer(idNode, p + ".portid", 0, 0xFFFF);
            if (portid != null) {
                JsonTree first = portIds.putIfAbsent(portid, idNode);
                if (first != null) {
                    error(idNode, p + ".portid", "port id " + portid + " is used twice (first at line "
                            + first.line() + ")");
                }
            }
            JsonTree addrNode = required(o, "addr", p);
            PortAddress addr = addrNode == null ? null : readAddress(addrNode, p + ".addr");
            if (addr != null) {
                String key = addr.traddr() + " port " + addr.trsvcid();
                String other = listenAddresses.putIfAbsent(key, p + " (line " + addrNode.line() + ")");
                if (other != null) {
                    error(addrNode, p + ".addr", "listens on " + key + " like " + other);
                }
            }
            PortParams param = readParams(o.fields().get("param"), p + ".param");
            List<String> exported = new ArrayList<>();
            List<JsonTree> subs = list(o, "subsystems", p + ".subsystems");
            for (int j = 0; j < subs.size(); j++) {
                String sp = p + ".subsystems[" + j + "]";
                String nqn = string(subs.get(j), sp);
                if (nqn == null || rejectedNames.contains(nqn)) {
                    continue;
                }
                if (!subsystems.containsKey(nqn)) {
                    error(subs.get(j), sp, "subsystem \"" + nqn + "\" is not declared under subsystems");
                } else if (exported.contains(nqn)) {
                    error(subs.get(j), sp, "subsystem \"" + nqn + "\" is listed twice");
                } else {
                    exported.add(nqn);
                }
            }
            List<Referral> referrals = readReferrals(o, p);
            List<AnaGroup> anaGroups = readAnaGroups(o, p);
            if (portid != null && addr != null) {
                ports.add(new PortConfig(portid.intValue(), addr, param, exported, referrals, anaGroups));
            }
        }
        return ports;
    }

    /**
     * A port of a transport nvmf4j does not speak (tcp, loop, fc): skipped with one warning, as nvmetcli's
     * {@code restore()} goes on past a port it cannot create. Nothing else of it is checked: its subsystems are
     * served on the other ports, and its TLS or referral settings concern a port that is not served.
     */
    private boolean otherTransport(JObject port, String p) {
        if (port.fields().get("addr") instanceof JObject addr
                && addr.fields().get("trtype") instanceof JsonTree.JScalar t && !t.isNull()
                && !t.text().equals("rdma")) {
            Object id = port.fields().get("portid") instanceof JsonTree.JScalar s ? s.text() : "?";
            warning(t, p + ".addr.trtype", "transport \"" + t.text() + "\" is not spoken by nvmf4j (rdma only):"
                    + " port " + id + " skipped");
            return true;
        }
        return false;
    }

    private PortAddress readAddress(JsonTree node, String ap) {
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
        if (!trtype.equals("rdma")) {
            // The rest of an fc/tcp/loop address has other rules; checking it would only add noise.
            error(trtypeNode, ap + ".trtype", "unsupported transport \"" + trtype + "\" (supported: rdma)");
            return null;
        }
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
        JsonTree svcNode = required(addr, "trsvcid", ap);
        String trsvcid = svcNode == null ? null : string(svcNode, ap + ".trsvcid");
        if (trsvcid != null) {
            Long port = Values.parseInteger(trsvcid);
            if (port == null || port < 1 || port > 65535 || !trsvcid.strip().matches("[0-9]+")) {
                error(svcNode, ap + ".trsvcid", "must be a port number between 1 and 65535, got \"" + trsvcid
                        + "\"");
                trsvcid = null;
            } else {
                trsvcid = Long.toString(port);
            }
        }
        String treq = PortAddress.TREQ_NOT_SPECIFIED;
        if (f.containsKey("treq")) {
            String t = string(f.get("treq"), ap + ".treq");
            if (t != null && !TREQ_VALUES.contains(t)) {
                error(f.get("treq"), ap + ".treq", "must be one of \"not specified\", \"required\", "
                        + "\"not required\", got \"" + t + "\"");
            } else if (t != null && t.equals("required")) {
                // TREQ "required": a secure channel is required (NVMe-oF 1.1 Discovery Log Entry TREQ bits 1:0);
                // serving the port without one would advertise and give plain connections.
                unsupported(f.get("treq"), ap + ".treq", UnsupportedFeature.TLS, "is \"required\"");
            } else if (t != null) {
                treq = t;
            }
        }
        if (f.containsKey("tsas") && !isNull(f.get("tsas"))) {
            // Linux nvmet_addr_tsas_show(): "connected"/"datagram" (the RDMA QP type) for rdma, "none"/"tls1.3"
            // for tcp, "" when unset. nvmf4j is a connected-QP RDMA transport without TLS.
            String t = string(f.get("tsas"), ap + ".tsas");
            if (t != null && t.strip().equals("tls1.3")) {
                unsupported(f.get("tsas"), ap + ".tsas", UnsupportedFeature.TLS, "is \"tls1.3\"");
            } else if (t != null && !t.isBlank() && !t.strip().equals("connected") && !t.strip().equals("none")) {
                error(f.get("tsas"), ap + ".tsas", "must be \"connected\" (RDMA reliable connected QPs) or empty,"
                        + " got \"" + t + "\"");
            }
        }
        if (adrfam == null || traddr == null || trsvcid == null) {
            return null;
        }
        return new PortAddress(trtype, adrfam, traddr, trsvcid, treq);
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

    private PortParams readParams(JsonTree node, String pp) {
        if (node == null || isNull(node)) {
            return PortParams.defaults();
        }
        JObject param = object(node, pp);
        if (param == null) {
            return PortParams.defaults();
        }
        unknownFields(param, pp, PARAM_FIELDS);
        Map<String, JsonTree> f = param.fields();
        int inline = (int) intOr(f.get("inline_data_size"), pp + ".inline_data_size", -1,
                Nvmf4jSettings.MAX_INLINE_DATA_SIZE, -1);
        int queue = defaultOrRange(f.get("max_queue_size"), pp + ".max_queue_size",
                Nvmf4jSettings.MIN_QUEUE_SIZE, Nvmf4jSettings.MAX_QUEUE_SIZE);
        int mdts = defaultOrRange(f.get("mdts"), pp + ".mdts", 1, Nvmf4jSettings.MAX_MDTS);
        if (f.containsKey("pi_enable") && bool(f.get("pi_enable"), pp + ".pi_enable", false)) {
            unsupported(f.get("pi_enable"), pp + ".pi_enable", UnsupportedFeature.PI, "is 1");
        }
        return new PortParams(inline, queue, mdts);
    }

    /** -1 ("let the transport choose", Linux's initial value) or a value in range. */
    private int defaultOrRange(JsonTree node, String path, int min, int max) {
        if (node == null || isNull(node)) {
            return PortParams.TRANSPORT_DEFAULT;
        }
        Long v = integer(node, path, Integer.MIN_VALUE, Integer.MAX_VALUE);
        if (v == null) {
            return PortParams.TRANSPORT_DEFAULT;
        }
        if (v != -1 && (v < min || v > max)) {
            error(node, path, "must be -1 (transport default) or between " + min + " and " + max + ", got " + v);
            return PortParams.TRANSPORT_DEFAULT;
        }
        return v.intValue();
    }

    private List<Referral> readReferrals(JObject port, String p) {
        List<Referral> referrals = new ArrayList<>();
        List<JsonTree> items = list(port, "referrals", p + ".referrals");
        for (int i = 0; i < items.size(); i++) {
            String rp = p + ".referrals[" + i + "]";
            JObject o = object(items.get(i), rp);
            if (o == null) {
                continue;
            }
            unknownFields(o, rp, REFERRAL_FIELDS);
            JsonTree nameNode = required(o, "name", rp);
            String name = nameNode == null ? null : string(nameNode, rp + ".name");
            boolean enable = o.fields().containsKey("enable") && bool(o.fields().get("enable"), rp + ".enable",
                    false);
            Map<String, String> addr = new LinkedHashMap<>();
            JsonTree addrNode = o.fields().get("addr");
            JObject a = addrNode == null ? null : object(addrNode, rp + ".addr");
            if (a != null) {
                for (Map.Entry<String, JsonTree> e : a.fields().entrySet()) {
                    String v = string(e.getValue(), rp + ".addr." + e.getKey());
                    if (v != null) {
                        addr.put(e.getKey(), v);
                    }
                }
            }
            if (name != null) {
                referrals.add(new Referral(name, addr, enable));
            }
        }
        return referrals;
    }

    private List<AnaGroup> readAnaGroups(JObject port, String p) {
        List<AnaGroup> groups = new ArrayList<>();
        Map<Long, JsonTree> seen = new HashMap<>();
        List<JsonTree> items = list(port, "ana_groups", p + ".ana_groups");
        for (int i = 0; i < items.size(); i++) {
            String gp = p + ".ana_groups[" + i + "]";
            JObject o = object(items.get(i), gp);
            if (o == null) {
                continue;
            }
            unknownFields(o, gp, ANA_GROUP_FIELDS);
            JsonTree idNode = required(o, "grpid", gp);
            Long grpid = idNode == null ? null : integer(idNode, gp + ".grpid", 1, MAX_ANA_GROUPS);
            String state = "optimized";
            if (o.fields().get("ana") instanceof JObject ana && ana.fields().containsKey("state")) {
                String s = string(ana.fields().get("state"), gp + ".ana.state");
                if (s != null && !ANA_STATES.contains(s)) {
                    error(ana.fields().get("state"), gp + ".ana.state", "must be one of " + String.join(", ",
                            ANA_STATES) + ", got \"" + s + "\"");
                } else if (s != null) {
                    state = s;
                }
            }
            if (grpid != null) {
                JsonTree first = seen.putIfAbsent(grpid, idNode);
                if (first != null) {
                    error(idNode, gp + ".grpid", "ANA group " + grpid + " is listed twice (first at line "
                            + first.line() + ")");
                } else {
                    groups.add(new AnaGroup(grpid.intValue(), state));
                }
            }
        }
        return groups;
    }
}
