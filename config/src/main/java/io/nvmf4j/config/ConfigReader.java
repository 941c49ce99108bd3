package io.nvmf4j.config;

import io.nvmf4j.config.DeviceConfig.FileDevice;
import io.nvmf4j.config.JsonTree.JObject;
import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.protocol.auth.InvalidDhchapSecretException;
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
 * once all lists are read. Ports and the nvmf4j section have their own readers; all share one problem list.
 */
final class ConfigReader extends FieldReader {

    private static final Set<String> ROOT_FIELDS = Set.of("hosts", "ports", "subsystems", "nvmf4j");
    private static final Set<String> HOST_FIELDS = Set.of("nqn", "dhchap");
    /** nvmetcli's "dhchap" attribute group: the host's dhchap_* configfs attributes (Linux 5.19+). */
    private static final Set<String> DHCHAP_FIELDS = Set.of("key", "ctrl_key", "hash", "dhgroup");
    private static final Set<String> SUBSYSTEM_FIELDS = Set.of("nqn", "attr", "allowed_hosts", "namespaces",
            "passthru");
    private static final Set<String> ATTR_FIELDS = Set.of("allow_any_host", "version", "serial", "model",
            "cntlid_min", "cntlid_max", "qid_max", "firmware", "ieee_oui", "pi_enable", "vendor_id",
            "subsys_vendor_id");
    private static final Set<String> NAMESPACE_FIELDS = Set.of("nsid", "enable", "device", "ana_grpid", "ana",
            "resv");
    private static final Set<String> DEVICE_FIELDS = Set.of("path", "nguid", "uuid");
    /** NVMET_NR_QUEUES in Linux drivers/nvme/target/nvmet.h. */
    private static final int MAX_QID = 128;

    private final Path baseDir;
    private final boolean checkDevicePaths;
    private final Map<String, DhchapConfig> hostAuth = new HashMap<>();

    ConfigReader(Path baseDir, boolean checkDevicePaths, Set<UnsupportedFeature> allowedUnsupported) {
        super(allowedUnsupported);
        this.baseDir = baseDir;
        this.checkDevicePaths = checkDevicePaths;
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
                settings = new Nvmf4jSectionReader(this).readSettings(nvmf4j);
            }
        }
        Map<String, JsonTree> hosts = readHosts(root);
        Map<String, SubsystemDraft> subsystems = readSubsystems(root, hosts, settings.defaultBlockSize());
        List<PortConfig> ports = new PortReader(this).readPorts(root, subsystems);
        if (nvmf4j != null) {
            Nvmf4jSectionReader section = new Nvmf4jSectionReader(this);
            section.readRamNamespaces(nvmf4j, subsystems, settings.defaultBlockSize());
            section.readNamespaceOptions(nvmf4j, subsystems);
        }
        List<SubsystemConfig> subsystemList = new ArrayList<>();
        for (SubsystemDraft d : subsystems.values()) {
            List<NamespaceConfig> namespaces = new ArrayList<>(d.namespaces.values());
            namespaces.sort((a, b) -> Long.compare(a.nsid(), b.nsid()));
            subsystemList.add(new SubsystemConfig(d.nqn, d.attr, d.allowedHosts, namespaces));
        }
        List<HostConfig> hostList = hosts.keySet().stream().map(n -> new HostConfig(n, hostAuth.get(n))).toList();
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
            DhchapConfig dhchap = readDhchap(o.fields().get("dhchap"), p + ".dhchap");
            if (nqn == null) {
                continue;
            }
            JsonTree first = hosts.putIfAbsent(nqn, n);
            if (first != null) {
                error(n, p + ".nqn", "host \"" + nqn + "\" is declared twice (first at line " + first.line() + ")");
            } else if (dhchap != null) {
                hostAuth.put(nqn, dhchap);
            }
        }
        return hosts;
    }

    /**
     * nvmetcli's {@code dhchap} object. Every field is checked here, not when a host connects (Linux only checks the
     * "DHHC-1:hh:" prefix when the key is written): a key that cannot be used would otherwise refuse every connect.
     * An unknown field in it is an error, since it may be an authentication setting we would silently drop.
     */
    private DhchapConfig readDhchap(JsonTree node, String dp) {
        if (node == null || isNull(node)) {
            return null;
        }
        JObject o = object(node, dp);
        if (o == null) {
            return null;
        }
        Map<String, JsonTree> f = o.fields();
        for (Map.Entry<String, JsonTree> e : f.entrySet()) {
            if (!DHCHAP_FIELDS.contains(e.getKey())) {
                error(e.getValue(), dp + "." + e.getKey(), "unknown authentication setting (nvmetcli's dhchap has"
                        + " key, ctrl_key, hash, dhgroup): refusing to ignore it");
            }
        }
        DhchapSecret key = secret(f.get("key"), dp + ".key");
        DhchapSecret ctrlKey = secret(f.get("ctrl_key"), dp + ".ctrl_key");
        DhchapHash hash = null;
        JsonTree hashNode = f.get("hash");
        if (hashNode != null && !isNull(hashNode)) {
            String name = string(hashNode, dp + ".hash");
            if (name != null) {
                // Linux nvme_auth_hmac_id() takes the crypto API names only.
                hash = DhchapHash.fromName(name).filter(h -> h.nvmetcliName().equals(name.strip())).orElse(null);
                if (hash == null) {
                    error(hashNode, dp + ".hash", "must be hmac(sha256), hmac(sha384) or hmac(sha512), got \""
                            + name + "\"");
                }
            }
        }
        DhchapDhGroup group = null;
        JsonTree groupNode = f.get("dhgroup");
        if (groupNode != null && !isNull(groupNode)) {
            String name = string(groupNode, dp + ".dhgroup");
            if (name != null) {
                // Linux nvme_auth_dhgroup_id() takes "null" and "ffdhe2048".."ffdhe8192".
                group = DhchapDhGroup.fromName(name).filter(g -> g.nvmetcliName().equals(name.strip()))
                        .orElse(null);
                if (group == null) {
                    error(groupNode, dp + ".dhgroup", "must be null, ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144 or"
                            + " ffdhe8192, got \"" + name + "\"");
                }
            }
        }
        if (key == null && ctrlKey != null) {
            // nvmet_setup_auth() authenticates nothing without a host key: the controller key would be ignored.
            error(f.get("ctrl_key"), dp + ".ctrl_key", "a controller key needs a host key (key is empty): Linux"
                    + " nvmet would not authenticate this host at all");
            return null;
        }
        return new DhchapConfig(key, ctrlKey, hash, group);
    }

    /** A DHHC-1 secret, or null for absent/empty (nvmetcli writes "" for an unset key). Never quotes the secret. */
    private DhchapSecret secret(JsonTree node, String path) {
        if (node == null || isNull(node)) {
            return null;
        }
        String text = string(node, path);
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return DhchapSecret.parse(text);
        } catch (InvalidDhchapSecretException e) {
            error(node, path, "not a DH-HMAC-CHAP secret (\"DHHC-1:hh:base64:\", as nvme gen-dhchap-key makes): "
                    + e.getMessage());
            return null;
        }
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
            } else if (attr.allowAnyHost() && hostAuth.values().stream().anyMatch(DhchapConfig::requiresAuthentication)) {
                // nvmet_setup_auth() finds keys through the subsystem's allowed hosts only: with allow_any_host a
                // host that has a key is served here without authentication, in Linux and here alike.
                warning(((JObject) o.fields().get("attr")).fields().get("allow_any_host"), p + ".attr.allow_any_host",
                        "is 1: hosts with a dhchap key connect to this subsystem without authentication (as with"
                        + " Linux nvmet); list them in allowed_hosts to require it");
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
            unsupported(f.get("pi_enable"), ap + ".pi_enable", UnsupportedFeature.PI, "is 1");
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
                unsupported(o.fields().get("enable"), pp + ".enable", UnsupportedFeature.PASSTHRU, "is 1");
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
            // "resv": {"enable": ...} (nvmet's per-namespace switch) is accepted and not needed: nvmf4j serves
            // reservations on every namespace
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
                draft.namespaces.put(nsid, new NamespaceConfig(nsid, enable, new FileDevice(path), blockSize, nguid,
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
}
