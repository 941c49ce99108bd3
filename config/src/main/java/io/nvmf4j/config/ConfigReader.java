package io.nvmf4j.config;

import io.nvmf4j.config.JsonTree.JArray;
import io.nvmf4j.config.JsonTree.JObject;
import io.nvmf4j.config.JsonTree.JScalar;
import io.nvmf4j.config.NamespaceBackend.FileBackend;
import io.nvmf4j.config.NamespaceBackend.RamBackend;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Turns a located JSON tree into a {@link TargetConfig}, collecting every problem with its field path and line.
 * The nvmetcli part follows what nvmetcli's {@code restore()} and the Linux configfs store functions accept; the
 * {@code "nvmf4j"} section is ours. Cross-references (allowed hosts, port subsystems, RAM namespaces) are checked
 * once all lists are read.
 */
final class ConfigReader {

    private static final Set<String> ROOT_FIELDS = Set.of("hosts", "ports", "subsystems", "nvmf4j");
    private static final Set<String> HOST_FIELDS = Set.of("nqn");
    private static final Set<String> SUBSYSTEM_FIELDS = Set.of("nqn", "attr", "allowed_hosts", "namespaces",
            "passthru");
    private static final Set<String> ATTR_FIELDS = Set.of("allow_any_host", "version", "serial", "model",
            "cntlid_min", "cntlid_max", "qid_max", "firmware", "ieee_oui", "pi_enable", "vendor_id",
            "subsys_vendor_id");
    private static final Set<String> NAMESPACE_FIELDS = Set.of("nsid", "enable", "device", "ana_grpid", "ana",
            "resv");
    private static final Set<String> DEVICE_FIELDS = Set.of("path", "nguid", "uuid");
    private static final Set<String> PORT_FIELDS = Set.of("portid", "addr", "param", "subsystems", "referrals",
            "ana_groups", "enable");
    private static final Set<String> ADDR_FIELDS = Set.of("trtype", "adrfam", "traddr", "trsvcid", "treq", "tsas");
    private static final Set<String> PARAM_FIELDS = Set.of("inline_data_size", "max_queue_size", "mdts",
            "pi_enable");
    private static final Set<String> REFERRAL_FIELDS = Set.of("name", "addr", "enable", "portid");
    private static final Set<String> ANA_GROUP_FIELDS = Set.of("grpid", "ana");
    private static final Set<String> NVMF4J_FIELDS = Set.of("provider", "poll_groups", "buffer_pool", "queues",
            "keep_alive", "metrics_port", "default_block_size", "ram_namespaces", "namespace_options");
    private static final Set<String> RAM_NAMESPACE_FIELDS = Set.of("subsystem", "nsid", "size", "block_size",
            "enable", "nguid", "uuid", "ana_grpid");
    private static final Set<String> NAMESPACE_OPTION_FIELDS = Set.of("subsystem", "nsid", "block_size");
    private static final List<String> TREQ_VALUES = List.of("not specified", "required", "not required");
    private static final List<String> ANA_STATES = List.of("optimized", "non-optimized", "inaccessible",
            "persistent-loss", "change");
    /** NVMET_MAX_ANAGRPS in Linux drivers/nvme/target/nvmet.h. */
    private static final int MAX_ANA_GROUPS = 128;
    /** NVMET_NR_QUEUES in Linux drivers/nvme/target/nvmet.h. */
    private static final int MAX_QID = 128;

    private final Path baseDir;
    private final boolean checkDevicePaths;
    private final List<ConfigProblem> errors = new ArrayList<>();
    private final List<ConfigProblem> warnings = new ArrayList<>();
    /** Names already reported as invalid: references to them would only repeat the same problem. */
    private final Set<String> rejectedNames = new java.util.HashSet<>();

    ConfigReader(Path baseDir, boolean checkDevicePaths) {
        this.baseDir = baseDir;
        this.checkDevicePaths = checkDevicePaths;
    }

    List<ConfigProblem> errors() {
        return errors;
    }

    List<ConfigProblem> warnings() {
        return warnings;
    }

    /** A subsystem while it is being read: namespaces still change (RAM namespaces, block sizes). */
    private static final class SubsystemDraft {
        final String nqn;
        final String path;
        final SubsystemAttributes attr;
        final List<String> allowedHosts;
        final Map<Long, NamespaceConfig> namespaces = new LinkedHashMap<>();
        final Map<Long, JsonTree> namespaceNodes = new HashMap<>();

        SubsystemDraft(String nqn, String path, SubsystemAttributes attr, List<String> allowedHosts) {
            this.nqn = nqn;
            this.path = path;
            this.attr = attr;
            this.allowedHosts = allowedHosts;
        }
    }

    TargetConfig read(JsonTree rootNode) {
        JObject root = object(rootNode, "(top level)");
        if (root == null) {
            return null;
        }
        unknownFields(root, "", ROOT_FIELDS);
        Nvmf4jSettings settings = Nvmf4jSettings.defaults();
        JsonTree nvmf4jNode = root.fields().get("nvmf4j");
        JObject nvmf4j = null;
        if (nvmf4jNode != null && !isNull(nvmf4jNode)) {
            nvmf4j = object(nvmf4jNode, "nvmf4j");
            if (nvmf4j != null) {
                settings = readSettings(nvmf4j);
            }
        }
        Map<String, JsonTree> hosts = readHosts(root);
        Map<String, SubsystemDraft> subsystems = readSubsystems(root, hosts, settings.defaultBlockSize());
        List<PortConfig> ports = readPorts(root, subsystems);
        if (nvmf4j != null) {
            readRamNamespaces(nvmf4j, subsystems, settings.defaultBlockSize());
            readNamespaceOptions(nvmf4j, subsystems);
        }
        List<SubsystemConfig> subsystemList = new ArrayList<>();
        for (SubsystemDraft d : subsystems.values()) {
            List<NamespaceConfig> namespaces = new ArrayList<>(d.namespaces.values());
            namespaces.sort((a, b) -> Long.compare(a.nsid(), b.nsid()));
            subsystemList.add(new SubsystemConfig(d.nqn, d.attr, d.allowedHosts, namespaces));
        }
        List<HostConfig> hostList = hosts.keySet().stream().map(HostConfig::new).toList();
        return new TargetConfig(hostList, ports, subsystemList, settings);
    }

    // ---------------------------------------------------------------- hosts

    private Map<String, JsonTree> readHosts(JObject root) {
        Map<String, JsonTree> hosts = new LinkedHashMap<>();
        List<JsonTree> items = list(root, "hosts", "hosts");
        for (int i = 0; i < items.size(); i++) {
            String p = "hosts[" + i + "]";
            JObject o = object(items.get(i), p);
            if (o == null) {
                continue;
            }
            unknownFields(o, p, HOST_FIELDS);
            JsonTree n = required(o, "nqn", p);
            String nqn = n == null ? null : nqn(n, p + ".nqn");
            if (nqn == null) {
                continue;
            }
            JsonTree first = hosts.putIfAbsent(nqn, n);
            if (first != null) {
                error(n, p + ".nqn", "host \"" + nqn + "\" is declared twice (first at line " + first.line() + ")");
            }
        }
        return hosts;
    }

    // ---------------------------------------------------------------- subsystems

    private Map<String, SubsystemDraft> readSubsystems(JObject root, Map<String, JsonTree> hosts, int blockSize) {
        Map<String, SubsystemDraft> subsystems = new LinkedHashMap<>();
        Map<String, JsonTree> nqnNodes = new HashMap<>();
        List<JsonTree> items = list(root, "subsystems", "subsystems");
        for (int i = 0; i < items.size(); i++) {
            String p = "subsystems[" + i + "]";
            JObject o = object(items.get(i), p);
            if (o == null) {
                continue;
            }
            unknownFields(o, p, SUBSYSTEM_FIELDS);
            JsonTree nqnNode = required(o, "nqn", p);
            String nqn = nqnNode == null ? null : nqn(nqnNode, p + ".nqn");
            if (nqn != null && nqn.equals(NqnRules.DISCOVERY_NQN)) {
                error(nqnNode, p + ".nqn", "the discovery subsystem is built in and cannot be configured");
                rejectedNames.add(nqn);
                nqn = null;
            }
            if (nqn != null && nqnNodes.containsKey(nqn)) {
                error(nqnNode, p + ".nqn", "subsystem \"" + nqn + "\" is declared twice (first at line "
                        + nqnNodes.get(nqn).line() + ")");
                nqn = null;
            }
            SubsystemAttributes attr = readAttributes(o, p);
            List<String> allowed = readAllowedHosts(o, p, hosts);
            if (attr.allowAnyHost() && !allowed.isEmpty()) {
                JsonTree at = ((JObject) o.fields().get("attr")).fields().get("allow_any_host");
                error(at, p + ".attr.allow_any_host", "is 1 but allowed_hosts lists " + allowed.size()
                        + " host(s); Linux nvmet refuses both (\"Can't set allow_any_host when explicit hosts are"
                        + " set\"): set allow_any_host to \"0\" or empty allowed_hosts");
            } else if (!attr.allowAnyHost() && allowed.isEmpty()) {
                warning(o, p, "no host can connect: allow_any_host is 0 and allowed_hosts is empty");
            }
            readPassthru(o, p);
            SubsystemDraft draft = new SubsystemDraft(nqn == null ? "" : nqn, p, attr, allowed);
            readNamespaces(o, p, draft, blockSize);
            if (nqn != null) {
                nqnNodes.put(nqn, nqnNode);
                subsystems.put(nqn, draft);
            }
        }
        return subsystems;
    }

    private SubsystemAttributes readAttributes(JObject subsystem, String p) {
        SubsystemAttributes d = SubsystemAttributes.defaults(false);
        JsonTree node = subsystem.fields().get("attr");
        if (node == null || isNull(node)) {
            return d;
        }
        String ap = p + ".attr";
        JObject attr = object(node, ap);
        if (attr == null) {
            return d;
        }
        unknownFields(attr, ap, ATTR_FIELDS);
        Map<String, JsonTree> f = attr.fields();
        boolean allowAny = f.containsKey("allow_any_host") && bool(f.get("allow_any_host"),
                ap + ".allow_any_host", false);
        String serial = printable(f.get("serial"), ap + ".serial", 20, "Serial Number");
        String model = printable(f.get("model"), ap + ".model", 40, "Model Number");
        String firmware = printable(f.get("firmware"), ap + ".firmware", 8, "Firmware Revision");
        String version = null;
        if (f.containsKey("version")) {
            version = string(f.get("version"), ap + ".version");
            if (version != null && !version.matches("[1-9][0-9]*\\.[0-9]+(\\.[0-9]+)?")) {
                error(f.get("version"), ap + ".version",
                        "must be major.minor or major.minor.tertiary (e.g. \"1.3\"), got \"" + version + "\"");
                version = null;
            }
        }
        int cntlidMin = (int) intOr(f.get("cntlid_min"), ap + ".cntlid_min", SubsystemAttributes.CNTLID_MIN,
                SubsystemAttributes.CNTLID_MAX, SubsystemAttributes.CNTLID_MIN);
        int cntlidMax = (int) intOr(f.get("cntlid_max"), ap + ".cntlid_max", SubsystemAttributes.CNTLID_MIN,
                SubsystemAttributes.CNTLID_MAX, SubsystemAttributes.CNTLID_MAX);
        if (cntlidMax < cntlidMin) {
            error(f.get("cntlid_max"), ap + ".cntlid_max",
                    "must not be below cntlid_min (" + cntlidMin + "), got " + cntlidMax);
        }
        Integer qidMax = f.containsKey("qid_max")
                ? (Integer) (int) intOr(f.get("qid_max"), ap + ".qid_max", 1, MAX_QID, MAX_QID) : null;
        Integer ieeeOui = f.containsKey("ieee_oui")
                ? (Integer) (int) intOr(f.get("ieee_oui"), ap + ".ieee_oui", 0, 0xFFFFFF, 0) : null;
        if (f.containsKey("pi_enable") && bool(f.get("pi_enable"), ap + ".pi_enable", false)) {
            error(f.get("pi_enable"), ap + ".pi_enable", "protection information is not supported by nvmf4j");
        }
        for (String ignored : List.of("vendor_id", "subsys_vendor_id")) {
            if (f.containsKey(ignored)) {
                warning(f.get(ignored), ap + "." + ignored, "not used by nvmf4j, ignored");
            }
        }
        return new SubsystemAttributes(allowAny, serial, model, version, cntlidMin, cntlidMax, qidMax, firmware,
                ieeeOui);
    }

    private List<String> readAllowedHosts(JObject subsystem, String p, Map<String, JsonTree> hosts) {
        List<String> allowed = new ArrayList<>();
        List<JsonTree> items = list(subsystem, "allowed_hosts", p + ".allowed_hosts");
        for (int i = 0; i < items.size(); i++) {
            String hp = p + ".allowed_hosts[" + i + "]";
            String nqn = string(items.get(i), hp);
            if (nqn == null) {
                continue;
            }
            if (rejectedNames.contains(nqn)) {
                continue;
            }
            if (!hosts.containsKey(nqn)) {
                error(items.get(i), hp, "host \"" + nqn
                        + "\" is not declared under hosts (nvmetcli links allowed hosts to declared hosts)");
            } else if (allowed.contains(nqn)) {
                error(items.get(i), hp, "host \"" + nqn + "\" is listed twice");
            } else {
                allowed.add(nqn);
            }
        }
        return allowed;
    }

    private void readPassthru(JObject subsystem, String p) {
        List<JsonTree> items = list(subsystem, "passthru", p + ".passthru");
        for (int i = 0; i < items.size(); i++) {
            String pp = p + ".passthru[" + i + "]";
            JObject o = object(items.get(i), pp);
            // nvmetcli dumps a disabled passthru group whenever the kernel has one; only an enabled one matters.
            if (o != null && o.fields().containsKey("enable") && bool(o.fields().get("enable"), pp + ".enable", false)) {
                error(o.fields().get("enable"), pp + ".enable", "passthru subsystems are not supported by nvmf4j");
            }
        }
    }

    private void readNamespaces(JObject subsystem, String p, SubsystemDraft draft, int blockSize) {
        List<JsonTree> items = list(subsystem, "namespaces", p + ".namespaces");
        for (int i = 0; i < items.size(); i++) {
            String np = p + ".namespaces[" + i + "]";
            JObject o = object(items.get(i), np);
            if (o == null) {
                continue;
            }
            unknownFields(o, np, NAMESPACE_FIELDS);
            Map<String, JsonTree> f = o.fields();
            JsonTree nsidNode = required(o, "nsid", np);
            Long nsid = nsidNode == null ? null : integer(nsidNode, np + ".nsid", 1, NamespaceConfig.NSID_MAX);
            boolean enable;
            if (f.containsKey("enable")) {
                enable = bool(f.get("enable"), np + ".enable", false);
            } else {
                enable = false;
                warning(o, np, "no \"enable\": the namespace stays disabled (as nvmetcli leaves it)");
            }
            int anaGrpid = (int) intOr(f.get("ana_grpid"), np + ".ana_grpid", 1, MAX_ANA_GROUPS, 1);
            if (f.get("resv") instanceof JObject resv && resv.fields().containsKey("enable")
                    && bool(resv.fields().get("enable"), np + ".resv.enable", false)) {
                warning(resv.fields().get("enable"), np + ".resv.enable",
                        "reservations are not supported by nvmf4j, ignored");
            }
            String dp = np + ".device";
            JsonTree deviceNode = required(o, "device", np);
            JObject device = deviceNode == null ? null : object(deviceNode, dp);
            Path path = null;
            byte[] nguid = null;
            UUID uuid = null;
            if (device != null) {
                unknownFields(device, dp, DEVICE_FIELDS);
                path = devicePath(device, dp, enable);
                nguid = nguid(device.fields().get("nguid"), dp + ".nguid");
                uuid = uuid(device.fields().get("uuid"), dp + ".uuid");
            }
            if (nsid == null) {
                continue;
            }
            JsonTree first = draft.namespaceNodes.putIfAbsent(nsid, nsidNode);
            if (first != null) {
                error(nsidNode, np + ".nsid", "nsid " + nsid + " is used twice in this subsystem (first at line "
                        + first.line() + ")");
                continue;
            }
            if (path != null) {
                draft.namespaces.put(nsid, new NamespaceConfig(nsid, enable, new FileBackend(path), blockSize, nguid,
                        uuid, anaGrpid));
            }
        }
    }

    private Path devicePath(JObject device, String dp, boolean enable) {
        JsonTree node = device.fields().get("path");
        String text = node == null || isNull(node) ? "" : string(node, dp + ".path");
        if (text == null) {
            return null;
        }
        if (text.isEmpty()) {
            if (enable) {
                error(node == null ? device : node, dp + ".path", "a file or block device is required when the"
                        + " namespace is enabled");
                return null;
            }
            return Path.of("");
        }
        Path path;
        try {
            path = Path.of(text);
        } catch (InvalidPathException e) {
            error(node, dp + ".path", "not a valid path: " + e.getReason());
            return null;
        }
        if (!path.isAbsolute() && baseDir != null) {
            path = baseDir.resolve(path);
        }
        if (checkDevicePaths && enable) {
            if (!Files.exists(path)) {
                error(node, dp + ".path", "no such file or block device: " + text);
            } else if (Files.isDirectory(path)) {
                error(node, dp + ".path", "is a directory, not a file or block device: " + text);
            }
        }
        return path;
    }

    // ---------------------------------------------------------------- ports

    private List<PortConfig> readPorts(JObject root, Map<String, SubsystemDraft> subsystems) {
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
            } else if (t != null) {
                treq = t;
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
            error(f.get("pi_enable"), pp + ".pi_enable", "protection information is not supported by nvmf4j");
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
            if (addrNode != null && object(addrNode, rp + ".addr") instanceof JObject a) {
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

    // ---------------------------------------------------------------- nvmf4j section

    private Nvmf4jSettings readSettings(JObject s) {
        Nvmf4jSettings d = Nvmf4jSettings.defaults();
        unknownFields(s, "nvmf4j", NVMF4J_FIELDS);
        Map<String, JsonTree> f = s.fields();
        Provider provider = d.provider();
        if (f.containsKey("provider")) {
            String name = string(f.get("provider"), "nvmf4j.provider");
            if (name != null) {
                Provider p = Provider.fromJson(name);
                if (p == null) {
                    error(f.get("provider"), "nvmf4j.provider", "unknown provider \"" + name
                            + "\" (known: softiwarp, ibverbs, auto)");
                } else {
                    provider = p;
                }
            }
        }
        JObject poll = section(f, "poll_groups", Set.of("count", "spin_budget_us"));
        int pollGroups = (int) intOr(field(poll, "count"), "nvmf4j.poll_groups.count", 0, 256, d.pollGroups());
        int spin = (int) intOr(field(poll, "spin_budget_us"), "nvmf4j.poll_groups.spin_budget_us", 0, 1_000_000,
                d.spinBudgetMicros());
        JObject pool = section(f, "buffer_pool", Set.of("count", "buffer_size"));
        int bufferCount = (int) intOr(field(pool, "count"), "nvmf4j.buffer_pool.count", 1, 1 << 20,
                d.bufferCount());
        int bufferSize = d.bufferSize();
        JsonTree sizeNode = field(pool, "buffer_size");
        if (sizeNode != null) {
            Long size = size(sizeNode, "nvmf4j.buffer_pool.buffer_size");
            if (size != null && (size < 4096 || size > (16 << 20) || Long.bitCount(size) != 1)) {
                error(sizeNode, "nvmf4j.buffer_pool.buffer_size",
                        "must be a power of two between 4K and 16M, got " + size);
            } else if (size != null) {
                bufferSize = size.intValue();
            }
        }
        JObject queues = section(f, "queues", Set.of("max_queue_size", "inline_data_size", "mdts"));
        int maxQueue = (int) intOr(field(queues, "max_queue_size"), "nvmf4j.queues.max_queue_size",
                Nvmf4jSettings.MIN_QUEUE_SIZE, Nvmf4jSettings.MAX_QUEUE_SIZE, d.maxQueueSize());
        int inline = (int) intOr(field(queues, "inline_data_size"), "nvmf4j.queues.inline_data_size", 0,
                Nvmf4jSettings.MAX_INLINE_DATA_SIZE, d.inlineDataSize());
        int mdts = (int) intOr(field(queues, "mdts"), "nvmf4j.queues.mdts", 1, Nvmf4jSettings.MAX_MDTS, d.mdts());
        JObject keepAlive = section(f, "keep_alive", Set.of("discovery_kato_ms"));
        int kato = (int) intOr(field(keepAlive, "discovery_kato_ms"), "nvmf4j.keep_alive.discovery_kato_ms", 1000,
                3_600_000, d.discoveryKatoMillis());
        Integer metricsPort = null;
        if (f.containsKey("metrics_port") && !isNull(f.get("metrics_port"))) {
            Long port = integer(f.get("metrics_port"), "nvmf4j.metrics_port", 1, 65535);
            metricsPort = port == null ? null : port.intValue();
        }
        int blockSize = d.defaultBlockSize();
        if (f.containsKey("default_block_size")) {
            blockSize = blockSize(f.get("default_block_size"), "nvmf4j.default_block_size", blockSize);
        }
        return new Nvmf4jSettings(provider, pollGroups, spin, bufferCount, bufferSize, maxQueue, inline, mdts, kato,
                metricsPort, blockSize);
    }

    private JObject section(Map<String, JsonTree> f, String name, Set<String> known) {
        JsonTree node = f.get(name);
        if (node == null || isNull(node)) {
            return null;
        }
        JObject o = object(node, "nvmf4j." + name);
        if (o != null) {
            unknownFields(o, "nvmf4j." + name, known);
        }
        return o;
    }

    private static JsonTree field(JObject o, String name) {
        return o == null ? null : o.fields().get(name);
    }

    private void readRamNamespaces(JObject s, Map<String, SubsystemDraft> subsystems, int defaultBlockSize) {
        List<JsonTree> items = list(s, "ram_namespaces", "nvmf4j.ram_namespaces");
        for (int i = 0; i < items.size(); i++) {
            String rp = "nvmf4j.ram_namespaces[" + i + "]";
            JObject o = object(items.get(i), rp);
            if (o == null) {
                continue;
            }
            unknownFields(o, rp, RAM_NAMESPACE_FIELDS);
            Map<String, JsonTree> f = o.fields();
            SubsystemDraft draft = subsystemRef(o, rp, subsystems);
            JsonTree nsidNode = required(o, "nsid", rp);
            Long nsid = nsidNode == null ? null : integer(nsidNode, rp + ".nsid", 1, NamespaceConfig.NSID_MAX);
            int blockSize = f.containsKey("block_size")
                    ? blockSize(f.get("block_size"), rp + ".block_size", defaultBlockSize) : defaultBlockSize;
            JsonTree sizeNode = required(o, "size", rp);
            Long size = sizeNode == null ? null : size(sizeNode, rp + ".size");
            if (size != null && size < blockSize) {
                error(sizeNode, rp + ".size", "must be at least one block (" + blockSize + " bytes), got " + size);
                size = null;
            } else if (size != null && size % blockSize != 0) {
                error(sizeNode, rp + ".size", size + " bytes is not a multiple of the block size " + blockSize);
                size = null;
            }
            boolean enable = !f.containsKey("enable") || bool(f.get("enable"), rp + ".enable", true);
            byte[] nguid = nguid(f.get("nguid"), rp + ".nguid");
            UUID uuid = uuid(f.get("uuid"), rp + ".uuid");
            int anaGrpid = (int) intOr(f.get("ana_grpid"), rp + ".ana_grpid", 1, MAX_ANA_GROUPS, 1);
            if (draft == null || nsid == null || size == null) {
                continue;
            }
            JsonTree first = draft.namespaceNodes.putIfAbsent(nsid, nsidNode);
            if (first != null) {
                error(nsidNode, rp + ".nsid", "nsid " + nsid + " is already used in subsystem \"" + draft.nqn
                        + "\" (line " + first.line() + ")");
                continue;
            }
            draft.namespaces.put(nsid, new NamespaceConfig(nsid, enable, new RamBackend(size), blockSize, nguid,
                    uuid, anaGrpid));
        }
    }

    private void readNamespaceOptions(JObject s, Map<String, SubsystemDraft> subsystems) {
        List<JsonTree> items = list(s, "namespace_options", "nvmf4j.namespace_options");
        for (int i = 0; i < items.size(); i++) {
            String op = "nvmf4j.namespace_options[" + i + "]";
            JObject o = object(items.get(i), op);
            if (o == null) {
                continue;
            }
            unknownFields(o, op, NAMESPACE_OPTION_FIELDS);
            SubsystemDraft draft = subsystemRef(o, op, subsystems);
            JsonTree nsidNode = required(o, "nsid", op);
            Long nsid = nsidNode == null ? null : integer(nsidNode, op + ".nsid", 1, NamespaceConfig.NSID_MAX);
            JsonTree bsNode = required(o, "block_size", op);
            int blockSize = bsNode == null ? -1 : blockSize(bsNode, op + ".block_size", -1);
            if (draft == null || nsid == null) {
                continue;
            }
            NamespaceConfig ns = draft.namespaces.get(nsid);
            if (ns == null || !(ns.backend() instanceof FileBackend)) {
                error(nsidNode, op + ".nsid", "subsystem \"" + draft.nqn + "\" has no namespace " + nsid
                        + " under subsystems[].namespaces");
                continue;
            }
            if (blockSize > 0) {
                draft.namespaces.put(nsid, new NamespaceConfig(ns.nsid(), ns.enable(), ns.backend(), blockSize,
                        ns.nguid(), ns.uuid(), ns.anaGrpid()));
            }
        }
    }

    private SubsystemDraft subsystemRef(JObject o, String p, Map<String, SubsystemDraft> subsystems) {
        JsonTree node = required(o, "subsystem", p);
        String nqn = node == null ? null : string(node, p + ".subsystem");
        if (nqn == null) {
            return null;
        }
        SubsystemDraft draft = subsystems.get(nqn);
        if (draft == null && !rejectedNames.contains(nqn)) {
            error(node, p + ".subsystem", "subsystem \"" + nqn + "\" is not declared under subsystems");
        }
        return draft;
    }

    // ---------------------------------------------------------------- value helpers

    private int blockSize(JsonTree node, String path, int fallback) {
        Long v = integer(node, path, Long.MIN_VALUE, Long.MAX_VALUE);
        if (v == null) {
            return fallback;
        }
        if (v != 512 && v != 4096) {
            error(node, path, "must be 512 or 4096, got " + v);
            return fallback;
        }
        return v.intValue();
    }

    private Long size(JsonTree node, String path) {
        if (node instanceof JScalar s && (s.token().isNumeric() || s.token() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING)) {
            Long v = Values.parseSize(s.text());
            if (v != null) {
                return v;
            }
        }
        error(node, path, "must be a size such as \"1G\", \"512M\" or a number of bytes, got " + shown(node));
        return null;
    }

    private String nqn(JsonTree node, String path) {
        String nqn = string(node, path);
        if (nqn == null) {
            return null;
        }
        String why = NqnRules.error(nqn);
        if (why != null) {
            error(node, path, why);
            rejectedNames.add(nqn);
            return null;
        }
        String violation = NqnRules.specViolation(nqn);
        if (violation != null) {
            warning(node, path, "\"" + nqn + "\" is not an NVMe-form NQN (" + violation
                    + "); accepted, as Linux nvmet does");
        }
        return nqn;
    }

    private byte[] nguid(JsonTree node, String path) {
        if (node == null || isNull(node)) {
            return null;
        }
        String text = string(node, path);
        if (text == null) {
            return null;
        }
        // Linux nvmet_ns_device_nguid_store(): 16 hex pairs, each optionally followed by '-' or ':'.
        String hex = text.strip().replaceAll("(?<=[0-9a-fA-F]{2})[-:]", "");
        if (!hex.matches("[0-9a-fA-F]{32}")) {
            error(node, path, "must be 16 bytes of hex (e.g. \"ef90689c-6c46-d44c-89c1-4067801309a8\"), got \""
                    + text + "\"");
            return null;
        }
        byte[] bytes = java.util.HexFormat.of().parseHex(hex);
        return allZero(bytes) ? null : bytes;
    }

    private UUID uuid(JsonTree node, String path) {
        if (node == null || isNull(node)) {
            return null;
        }
        String text = string(node, path);
        if (text == null) {
            return null;
        }
        if (!text.strip().matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            error(node, path, "must be a UUID such as \"d592cdf3-5d1c-44e0-8412-3fcf7d99df27\", got \"" + text
                    + "\"");
            return null;
        }
        UUID uuid = UUID.fromString(text.strip());
        // Linux shows an unset uuid as all zeroes (%pUb of a zeroed uuid_t): the same as no uuid.
        return uuid.getMostSignificantBits() == 0 && uuid.getLeastSignificantBits() == 0 ? null : uuid;
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private String printable(JsonTree node, String path, int max, String what) {
        if (node == null || isNull(node)) {
            return null;
        }
        String text = string(node, path);
        if (text == null) {
            return null;
        }
        if (text.isEmpty() || text.length() > max) {
            error(node, path, what + " must be 1 to " + max + " characters, got " + text.length());
            return null;
        }
        // "See Section 1.5 of NVMe 1.4": ASCII strings are printable characters 20h-7Eh (nvmet_is_ascii()).
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                error(node, path, what + " must be printable ASCII, got \"" + text + "\"");
                return null;
            }
        }
        return text;
    }

    private long intOr(JsonTree node, String path, long min, long max, long fallback) {
        if (node == null || isNull(node)) {
            return fallback;
        }
        Long v = integer(node, path, min, max);
        return v == null ? fallback : v;
    }

    private Long integer(JsonTree node, String path, long min, long max) {
        Long v = null;
        if (node instanceof JScalar s && (s.token() == com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT
                || s.token() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING)) {
            v = Values.parseInteger(s.text());
        }
        if (v == null) {
            error(node, path, "must be an integer, got " + shown(node));
            return null;
        }
        if (v < min || v > max) {
            error(node, path, "must be between " + min + " and " + max + ", got " + v);
            return null;
        }
        return v;
    }

    private boolean bool(JsonTree node, String path, boolean fallback) {
        Boolean v = null;
        if (node instanceof JScalar s) {
            v = switch (s.token()) {
                case VALUE_TRUE -> true;
                case VALUE_FALSE -> false;
                case VALUE_NUMBER_INT, VALUE_STRING -> Values.parseBoolean(s.text());
                default -> null;
            };
        }
        if (v == null) {
            error(node, path, "must be 1 or 0 (or true/false), got " + shown(node));
            return fallback;
        }
        return v;
    }

    /** A string; numbers are taken as their text, since nvmetcli writes some values either way. */
    private String string(JsonTree node, String path) {
        if (node instanceof JScalar s && (s.token() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING
                || s.token().isNumeric())) {
            return s.text();
        }
        error(node, path, "must be a string, got " + shown(node));
        return null;
    }

    private static String shown(JsonTree node) {
        if (node instanceof JScalar s && s.token() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING) {
            return "\"" + s.text() + "\"";
        }
        if (node instanceof JScalar s && !s.isNull()) {
            return s.text();
        }
        return node.kind();
    }

    private JObject object(JsonTree node, String path) {
        if (node instanceof JObject o) {
            return o;
        }
        error(node, path, "must be an object, got " + shown(node));
        return null;
    }

    /** The items of an optional array field; absent or null is an empty list (nvmetcli uses .get(key, [])). */
    private List<JsonTree> list(JObject parent, String key, String path) {
        JsonTree node = parent.fields().get(key);
        if (node == null || isNull(node)) {
            return List.of();
        }
        if (node instanceof JArray a) {
            return a.items();
        }
        error(node, path, "must be an array, got " + shown(node));
        return List.of();
    }

    private JsonTree required(JObject parent, String key, String parentPath) {
        JsonTree node = parent.fields().get(key);
        if (node == null || isNull(node)) {
            error(node == null ? parent : node, parentPath + "." + key, "is required");
            return null;
        }
        return node;
    }

    private void unknownFields(JObject o, String path, Set<String> known) {
        for (Map.Entry<String, JsonTree> e : o.fields().entrySet()) {
            if (!known.contains(e.getKey())) {
                String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                warning(e.getValue(), p, "unknown field, ignored");
            }
        }
    }

    private static boolean isNull(JsonTree node) {
        return node instanceof JScalar s && s.isNull();
    }

    private void error(JsonTree at, String path, String message) {
        errors.add(new ConfigProblem(path, at.line(), at.column(), message));
    }

    private void warning(JsonTree at, String path, String message) {
        warnings.add(new ConfigProblem(path, at.line(), at.column(), message));
    }
}
