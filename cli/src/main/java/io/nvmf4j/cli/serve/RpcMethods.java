package io.nvmf4j.cli.serve;

import com.fasterxml.jackson.databind.JsonNode;
import io.nvmf4j.config.DhchapConfig;
import io.nvmf4j.config.PortConfig;
import io.nvmf4j.target.Controller;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.target.SubsystemNamespace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The management methods, named after SPDK's nvmf RPCs where one exists ({@code scripts/rpc.py nvmf_*}), the rest
 * {@code nvmf4j_*}; {@code save_config} as SPDK's ({@code nvmf4j_reload_config}, SIGHUP's reload, has no SPDK
 * counterpart: SPDK's {@code load_config} is a client that replays a file's calls). Parameters are one flat object; numbers may come as JSON numbers
 * or as decimal strings (what {@code nvmf4j rpc --param k=v} sends).
 */
public final class RpcMethods {

    /** Every method and its parameters, for {@code rpc_get_methods} and the error of an unknown method. */
    public static final Map<String, String> METHODS = methods();

    /** What {@code nvmf4j_reload_config} runs: the daemon's SIGHUP reload. */
    @FunctionalInterface
    public interface Reloader {
        ConfigReload.Result reload() throws RpcError;
    }

    private final LiveTarget live;
    private final Path defaultSavePath;
    private final Reloader reloader;

    public RpcMethods(LiveTarget live, Path defaultSavePath) {
        this(live, defaultSavePath, () -> {
            throw RpcError.refused("this target has no configuration file to reload");
        });
    }

    public RpcMethods(LiveTarget live, Path defaultSavePath, Reloader reloader) {
        this.live = live;
        this.defaultSavePath = defaultSavePath;
        this.reloader = reloader;
    }

    private static Map<String, String> methods() {
        Map<String, String> m = new TreeMap<>();
        m.put("rpc_get_methods", "");
        m.put("nvmf4j_get_daemon", "");
        m.put("nvmf_get_subsystems", "[nqn]");
        m.put("nvmf_create_subsystem", "nqn [serial_number] [model_number] [allow_any_host]");
        m.put("nvmf_delete_subsystem", "nqn");
        m.put("nvmf_subsystem_add_ns", "nqn (path | size) [nsid] [block_size] [uuid]");
        m.put("nvmf_subsystem_remove_ns", "nqn nsid");
        m.put("nvmf4j_subsystem_resize_ns", "nqn nsid [size]");
        m.put("nvmf_subsystem_add_host", "nqn host [dhchap_key] [dhchap_ctrlr_key]");
        m.put("nvmf_subsystem_remove_host", "nqn host");
        m.put("nvmf_subsystem_allow_any_host", "nqn allow_any_host");
        m.put("nvmf4j_subsystem_set_attr", "nqn name value");
        m.put("nvmf_subsystem_add_listener", "nqn (portid | traddr trsvcid [adrfam] [trtype])");
        m.put("nvmf_subsystem_remove_listener", "nqn (portid | traddr trsvcid [trtype])");
        m.put("nvmf_subsystem_listener_set_ana_state", "nqn (portid | traddr trsvcid [trtype]) ana_state [anagrpid]");
        m.put("nvmf4j_get_ports", "");
        m.put("nvmf4j_add_port", "traddr trsvcid [portid] [adrfam] [trtype]");
        m.put("nvmf4j_remove_port", "portid");
        m.put("nvmf_subsystem_get_controllers", "nqn");
        m.put("nvmf4j_disconnect_controller", "nqn cntlid");
        m.put("save_config", "[path]");
        m.put("nvmf4j_reload_config", "");
        return m;
    }

    /**
     * SPDK's {@code dhchap_key}/{@code dhchap_ctrlr_key} of add_host as the host's DH-HMAC-CHAP settings, or null
     * when neither is given (the host keeps the keys it has). A controller key needs a host key.
     */
    private static DhchapConfig dhchap(Params p) throws RpcError {
        var key = DhchapKeyParam.parse("dhchap_key", p.optText("dhchap_key"));
        var ctrlKey = DhchapKeyParam.parse("dhchap_ctrlr_key", p.optText("dhchap_ctrlr_key"));
        if (key == null && ctrlKey != null) {
            throw RpcError.invalidParams("dhchap_ctrlr_key needs dhchap_key (bidirectional authentication"
                    + " authenticates the host too)");
        }
        return key == null ? null : DhchapConfig.of(key, ctrlKey);
    }

    /** Runs one method; the result is a Jackson-serialisable value. */
    public Object call(String method, JsonNode params) throws RpcError {
        Params p = new Params(params);
        if (METHODS.containsKey(method)) {
            p.requireOnly(method);
        }
        Object result = switch (method) {
            case "rpc_get_methods" -> METHODS.keySet();
            case "nvmf4j_get_daemon" -> daemon();
            case "nvmf_get_subsystems" -> subsystems(p.optText("nqn"));
            case "nvmf_create_subsystem" -> {
                live.createSubsystem(p.text("nqn"), p.optText("serial_number"), p.optText("model_number"),
                        p.optBoolean("allow_any_host", false));
                yield true;
            }
            case "nvmf_delete_subsystem" -> {
                live.deleteSubsystem(p.text("nqn"));
                yield true;
            }
            case "nvmf_subsystem_add_ns" -> {
                String size = p.optText("size");
                String uuid = p.optText("uuid");
                long nsid = live.addNamespace(p.text("nqn"), p.optLong("nsid", 0), p.optText("path"),
                        size == null ? 0 : parseSize(size), (int) p.optLong("block_size", 0),
                        uuid == null ? null : parseUuid(uuid));
                yield nsid;
            }
            case "nvmf_subsystem_remove_ns" -> {
                live.removeNamespace(p.text("nqn"), p.number("nsid"));
                yield true;
            }
            case "nvmf4j_subsystem_resize_ns" -> {
                String size = p.optText("size");
                yield Map.of("size", live.resizeNamespace(p.text("nqn"), p.number("nsid"),
                        size == null ? 0 : parseSize(size)));
            }
            case "nvmf_subsystem_add_host" -> {
                live.addHost(p.text("nqn"), p.text("host"), dhchap(p));
                yield true;
            }
            case "nvmf_subsystem_remove_host" -> {
                live.removeHost(p.text("nqn"), p.text("host"));
                yield true;
            }
            case "nvmf_subsystem_allow_any_host" -> {
                live.setAttribute(p.text("nqn"), "allow_any_host", p.text("allow_any_host"));
                yield true;
            }
            case "nvmf4j_subsystem_set_attr" -> {
                live.setAttribute(p.text("nqn"), p.text("name"), p.text("value"));
                yield true;
            }
            case "nvmf_subsystem_add_listener" -> {
                String nqn = p.text("nqn");
                int portid = listenerPort(p, true);
                live.addListener(nqn, portid);
                yield Map.of("portid", portid);
            }
            case "nvmf_subsystem_remove_listener" -> {
                live.removeListener(p.text("nqn"), listenerPort(p, false));
                yield true;
            }
            case "nvmf_subsystem_listener_set_ana_state" -> {
                String nqn = p.text("nqn");
                live.setAnaState(nqn, listenerPort(p, false), p.text("ana_state"),
                        p.optText("anagrpid") == null ? 0 : (int) p.number("anagrpid"));
                yield true;
            }
            case "nvmf4j_get_ports" -> ports();
            case "nvmf4j_add_port" -> Map.of("portid", live.addPort((int) p.optLong("portid", 0), p.optText("trtype"),
                    p.text("traddr"), p.text("trsvcid"), p.optText("adrfam")));
            case "nvmf4j_remove_port" -> {
                live.removePort((int) p.number("portid"));
                yield true;
            }
            case "nvmf_subsystem_get_controllers" -> controllers(live.subsystem(p.text("nqn")));
            case "nvmf4j_disconnect_controller" -> {
                live.disconnect(p.text("nqn"), (int) p.number("cntlid"));
                yield true;
            }
            case "save_config" -> {
                String path = p.optText("path");
                Path target = path != null ? Path.of(path) : defaultSavePath;
                if (target == null) {
                    throw RpcError.invalidParams("no path given and the daemon was not started with --config");
                }
                try {
                    AtomicSave.write(target, live.configWithIdentity().toJson());
                } catch (java.io.IOException e) {
                    throw RpcError.refused("saving to " + target + ": " + e.getMessage());
                }
                yield Map.of("path", target.toString());
            }
            case "nvmf4j_reload_config" -> {
                // what SIGHUP does, for a daemon that cannot handle it (its parent ignored it: nohup)
                ConfigReload.Result r = reloader.reload();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("changes", r.changes());
                m.put("problems", r.problems());
                yield m;
            }
            default -> throw new RpcError(RpcError.METHOD_NOT_FOUND, "no method \"" + method
                    + "\"; rpc_get_methods lists them");
        };
        return result;
    }

    /**
     * Who answers: with several daemons on a machine, ctl says which one it reached by the pid and the --config
     * (what ps and systemctl status show) rather than by the socket alone, which a second daemon may have taken.
     */
    private Map<String, Object> daemon() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pid", ProcessHandle.current().pid());
        m.put("config", defaultSavePath == null ? null : defaultSavePath.toAbsolutePath().toString());
        m.put("version", io.nvmf4j.cli.VersionProvider.version());
        return m;
    }

    /**
     * The port a listener names: by {@code portid}, or as SPDK does by address ({@code trtype}, default RDMA,
     * {@code traddr}, {@code trsvcid}), then a port on that address, made when {@code create} and there is none.
     */
    private int listenerPort(Params p, boolean create) throws RpcError {
        if (p.optText("portid") != null) {
            return (int) p.number("portid");
        }
        String traddr = p.text("traddr");
        String trsvcid = p.text("trsvcid");
        String trtype = p.optText("trtype") == null ? "rdma" : p.optText("trtype");
        for (PortConfig pc : live.config().ports()) {
            if (pc.addr().trtype().equalsIgnoreCase(trtype) && pc.addr().traddr().equals(traddr)
                    && pc.addr().trsvcid().equals(trsvcid)) {
                return pc.portid();
            }
        }
        if (!create) {
            throw RpcError.invalidParams("no port on " + traddr + ":" + trsvcid);
        }
        return live.addPort(0, trtype, traddr, trsvcid, p.optText("adrfam"));
    }

    private List<Object> subsystems(String only) throws RpcError {
        List<Object> out = new ArrayList<>();
        List<Subsystem> list = only != null ? List.of(live.subsystem(only)) : live.target().subsystems();
        for (Subsystem s : list.stream().sorted(java.util.Comparator.comparing(x -> x.nqn().value())).toList()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("nqn", s.nqn().value());
            m.put("subtype", s.isDiscovery() ? "Discovery" : "NVMe");
            List<Object> listen = new ArrayList<>();
            for (Port p : live.target().ports()) {
                if (s.isDiscovery() || p.subsystems().contains(s)) {
                    listen.add(listenAddress(p));
                }
            }
            m.put("listen_addresses", listen);
            m.put("allow_any_host", s.allowsAnyHost());
            m.put("hosts", s.allowedHosts().stream().sorted().map(h -> Map.of("nqn", h)).toList());
            if (!s.isDiscovery()) {
                m.put("serial_number", s.serial());
                m.put("model_number", s.model());
                m.put("max_namespaces", Subsystem.MAX_NAMESPACES);
                List<Object> namespaces = new ArrayList<>();
                for (SubsystemNamespace ns : s.namespaces()) {
                    Map<String, Object> n = new LinkedHashMap<>();
                    n.put("nsid", ns.nsid());
                    n.put("bdev_name", ns.backend().description());
                    n.put("size", ns.backend().sizeInBytes());
                    n.put("block_size", ns.backend().blockSize());
                    n.put("enabled", ns.isEnabled());
                    ns.uuid().ifPresent(u -> n.put("uuid", u.toString()));
                    namespaces.add(n);
                }
                m.put("namespaces", namespaces);
                m.put("controllers", s.controllers().size());
            }
            out.add(m);
        }
        return out;
    }

    private List<Object> ports() {
        List<Object> out = new ArrayList<>();
        for (Port p : live.target().ports()) {
            Map<String, Object> m = listenAddress(p);
            m.put("portid", p.portId());
            m.put("subsystems", p.subsystems().stream().map(s -> s.nqn().value()).toList());
            List<Object> groups = new ArrayList<>();
            p.anaGroups().forEach((grpid, state) -> {
                Map<String, Object> g = new LinkedHashMap<>();
                g.put("anagrpid", grpid);
                g.put("ana_state", state.label());
                groups.add(g);
            });
            m.put("ana_groups", groups);
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> listenAddress(Port p) {
        Map<String, Object> m = new LinkedHashMap<>();
        // SPDK's spdk_nvme_transport_id_trtype_str() spelling
        m.put("trtype", p.trtype() == io.nvmf4j.protocol.log.DiscoveryLogEntry.TRTYPE_TCP ? "TCP" : "RDMA");
        m.put("adrfam", p.adrfam() == 2 ? "IPv6" : "IPv4");
        m.put("traddr", p.traddr());
        m.put("trsvcid", p.trsvcid());
        return m;
    }

    /** SPDK's nvmf_subsystem_get_controllers, plus the address, the port and the queues (admin and I/O apart). */
    private static List<Object> controllers(Subsystem s) {
        List<Object> out = new ArrayList<>();
        for (Controller c : s.controllers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("cntlid", c.id());
            m.put("hostnqn", c.hostNqn());
            m.put("hostid", uuidText(c.hostId()));
            SubmissionQueue admin = c.queue(0);
            m.put("address", admin == null ? null : admin.transport().remoteAddress());
            m.put("portid", c.port().portId());
            int io = 0;
            for (SubmissionQueue q : c.queues()) {
                if (q.qidValue() != 0) {
                    io++;
                }
            }
            m.put("admin_queues", admin == null ? 0 : 1);
            m.put("io_queues", io);
            m.put("keep_alive_timeout_s", c.keepAliveTimeoutSeconds());
            out.add(m);
        }
        return out;
    }

    private static String uuidText(byte[] id) {
        if (id == null || id.length != 16) {
            return null;
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(id);
        return new UUID(b.getLong(), b.getLong()).toString();
    }

    private static UUID parseUuid(String text) throws RpcError {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw RpcError.invalidParams("uuid \"" + text + "\" is not a UUID");
        }
    }

    /** 1073741824, 1G, 512M, 4096K (binary units). */
    static long parseSize(String text) throws RpcError {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]{1,19})\\s*([kKmMgGtT]?)(i?[bB])?")
                .matcher(text.trim());
        if (!m.matches()) {
            throw RpcError.invalidParams("size \"" + text + "\" is not a number of bytes (e.g. 1G, 512M)");
        }
        int shift = switch (m.group(2).toUpperCase(java.util.Locale.ROOT)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw RpcError.invalidParams("size \"" + text + "\" is too large");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw RpcError.invalidParams("size \"" + text + "\" is too large");
        }
    }

    /** The params object, with the names read so far, so an unknown (misspelt) name is an error, not ignored. */
    private static final class Params {
        private final JsonNode node;

        Params(JsonNode node) throws RpcError {
            if (node != null && !node.isNull() && !node.isObject()) {
                throw RpcError.invalidParams("params must be an object of named parameters");
            }
            this.node = node == null || node.isNull() ? com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                    .objectNode() : node;
        }

        String optText(String name) throws RpcError {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.isValueNode()) {
                throw RpcError.invalidParams("parameter \"" + name + "\" must be a string or number");
            }
            return v.asText();
        }

        String text(String name) throws RpcError {
            String v = optText(name);
            if (v == null || v.isEmpty()) {
                throw RpcError.invalidParams("missing parameter \"" + name + "\"");
            }
            return v;
        }

        long optLong(String name, long otherwise) throws RpcError {
            String v = optText(name);
            if (v == null) {
                return otherwise;
            }
            try {
                long n = Long.parseLong(v.trim());
                if (n < 0) {
                    throw RpcError.invalidParams("parameter \"" + name + "\" must not be negative");
                }
                return n;
            } catch (NumberFormatException e) {
                throw RpcError.invalidParams("parameter \"" + name + "\" must be a number, not \"" + v + "\"");
            }
        }

        long number(String name) throws RpcError {
            if (optText(name) == null) {
                throw RpcError.invalidParams("missing parameter \"" + name + "\"");
            }
            return optLong(name, 0);
        }

        boolean optBoolean(String name, boolean otherwise) throws RpcError {
            String v = optText(name);
            if (v == null) {
                return otherwise;
            }
            return switch (v.toLowerCase(java.util.Locale.ROOT)) {
                case "1", "true", "yes" -> true;
                case "0", "false", "no" -> false;
                default -> throw RpcError.invalidParams("parameter \"" + name + "\" must be true or false");
            };
        }

        /** Checked before anything changes: a misspelt optional name must not be silently ignored. */
        void requireOnly(String method) throws RpcError {
            Set<String> known = Set.of(METHODS.get(method).replaceAll("[\\[\\]()|]", " ").trim().split("\\s+"));
            for (var it = node.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                if (!known.contains(name)) {
                    throw RpcError.invalidParams("unknown parameter \"" + name + "\" for " + method + " ("
                            + METHODS.getOrDefault(method, "") + ")");
                }
            }
        }
    }
}
