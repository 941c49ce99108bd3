package io.nvmf4j.config;

import io.nvmf4j.config.JsonTree.JObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code ports} list: Linux {@code nvmet_port} configfs groups as nvmetcli dumps them ({@code addr_*},
 * {@code param_*}, the {@code subsystems} links, referrals and ANA groups). The {@code addr} group's rules are
 * {@link PortAddressReader}'s.
 */
final class PortReader extends FieldReader {

    private static final Set<String> PORT_FIELDS = Set.of("portid", "addr", "param", "subsystems", "referrals",
            "ana_groups", "enable");
    private static final Set<String> PARAM_FIELDS = Set.of("inline_data_size", "max_queue_size", "mdts",
            "pi_enable");
    private static final Set<String> REFERRAL_FIELDS = Set.of("name", "addr", "enable", "portid");
    private static final Set<String> ANA_GROUP_FIELDS = Set.of("grpid", "ana");
    private static final List<String> ANA_STATES = List.of("optimized", "non-optimized", "inaccessible",
            "persistent-loss", "change");

    private final PortAddressReader addresses;

    PortReader(FieldReader shared) {
        super(shared);
        this.addresses = new PortAddressReader(shared);
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
            PortAddress addr = addrNode == null ? null : addresses.readAddress(addrNode, p + ".addr");
            if (addr != null) {
                // Per transport: nvmet lets an rdma and a tcp port share an address, as nvmetcli dumps of such
                // targets show (RDMA CM has its own port space on InfiniBand and RoCE; over iWARP, softiwarp
                // included, both need the TCP port and the second fails to listen when the daemon starts).
                String key = addr.traddr() + " port " + addr.trsvcid();
                String other = listenAddresses.putIfAbsent(addr.trtype() + " " + key, p + " (line "
                        + addrNode.line() + ")");
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
     * A port of a transport nvmf4j does not speak (loop, fc): skipped with one warning, as nvmetcli's
     * {@code restore()} goes on past a port it cannot create. Nothing else of it is checked: its subsystems are
     * served on the other ports, and its TLS or referral settings concern a port that is not served.
     */
    private boolean otherTransport(JObject port, String p) {
        if (port.fields().get("addr") instanceof JObject addr
                && addr.fields().get("trtype") instanceof JsonTree.JScalar t && !t.isNull()
                && !t.text().equals(PortAddress.TRTYPE_RDMA) && !t.text().equals(PortAddress.TRTYPE_TCP)) {
            Object id = port.fields().get("portid") instanceof JsonTree.JScalar s ? s.text() : "?";
            warning(t, p + ".addr.trtype", "transport \"" + t.text() + "\" is not spoken by nvmf4j (rdma and tcp"
                    + " only): port " + id + " skipped");
            return true;
        }
        return false;
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
