package io.nvmf4j.config;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.nvmf4j.config.DeviceConfig.FileDevice;
import io.nvmf4j.config.DeviceConfig.RamDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a {@link TargetConfig} as nvmetcli's {@code saveconfig.json} would: sorted keys, two-space indent,
 * configfs attribute values as strings ({@code "allow_any_host": "1"}), ids and {@code enable} as numbers (nvmetcli
 * {@code dump()}). RAM namespaces, non-default block sizes and the settings go to the {@code "nvmf4j"} section,
 * which nvmetcli's {@code restore()} ignores, so nvmetcli can restore the file namespaces of what we write.
 */
public final class ConfigWriter {

    private ConfigWriter() {
    }

    public static String toJson(TargetConfig config) {
        Map<String, Object> root = new TreeMap<>();
        root.put("hosts", config.hosts().stream().map(ConfigWriter::host).toList());
        root.put("ports", config.ports().stream().map(ConfigWriter::port).toList());
        root.put("subsystems", config.subsystems().stream().map(ConfigWriter::subsystem).toList());
        root.put("nvmf4j", settings(config));
        StringBuilder sb = new StringBuilder();
        write(sb, root, 0);
        return sb.append('\n').toString();
    }

    /**
     * nvmetcli's host: {@code nqn}, and on a kernel with NVMe target authentication the {@code dhchap} group
     * ({@code key}/{@code ctrl_key} as the DHHC-1 text, {@code ""} when unset, as nvmet shows them). Hash and
     * DH group are written only when set, so a file that named none reloads allowing every one.
     */
    private static Object host(HostConfig h) {
        Map<String, Object> m = new TreeMap<>();
        m.put("nqn", h.nqn());
        DhchapConfig d = h.dhchap();
        if (d != null) {
            Map<String, Object> dhchap = new TreeMap<>();
            dhchap.put("key", d.key() == null ? "" : d.key().format());
            dhchap.put("ctrl_key", d.ctrlKey() == null ? "" : d.ctrlKey().format());
            if (d.hash() != null) {
                dhchap.put("hash", d.hash().nvmetcliName());
            }
            if (d.dhGroup() != null) {
                dhchap.put("dhgroup", d.dhGroup().nvmetcliName());
            }
            m.put("dhchap", dhchap);
        }
        return m;
    }

    /**
     * A port as nvmetcli dumps it, rdma and tcp alike. {@code addr.tsas} is left out: what nvmf4j serves is its
     * default ("connected" for rdma, "none" for tcp), and {@code nvmetcli restore} on a kernel older than
     * {@code addr_tsas} would report an error for it.
     */
    private static Map<String, Object> port(PortConfig p) {
        Map<String, Object> m = new TreeMap<>();
        PortAddress a = p.addr();
        m.put("addr", new TreeMap<>(Map.of("adrfam", a.adrfam(), "traddr", a.traddr(), "treq", a.treq(),
                "trsvcid", a.trsvcid(), "trtype", a.trtype())));
        m.put("ana_groups", p.anaGroups().stream()
                .map(g -> (Object) new TreeMap<>(Map.of("ana", Map.of("state", g.state()), "grpid", g.grpid())))
                .toList());
        m.put("param", new TreeMap<>(Map.of(
                "inline_data_size", Integer.toString(p.param().inlineDataSize()),
                "max_queue_size", Integer.toString(p.param().maxQueueSize()),
                "mdts", Integer.toString(p.param().mdts()))));
        m.put("portid", p.portid());
        m.put("referrals", p.referrals().stream()
                .map(r -> (Object) new TreeMap<>(Map.of("addr", new TreeMap<>(r.addr()), "enable",
                        r.enable() ? 1 : 0, "name", r.name())))
                .toList());
        m.put("subsystems", new ArrayList<Object>(p.subsystems()));
        return m;
    }

    private static Map<String, Object> subsystem(SubsystemConfig s) {
        Map<String, Object> m = new TreeMap<>();
        m.put("allowed_hosts", new ArrayList<Object>(s.allowedHosts()));
        SubsystemAttributes a = s.attr();
        Map<String, Object> attr = new TreeMap<>();
        attr.put("allow_any_host", a.allowAnyHost() ? "1" : "0");
        attr.put("cntlid_min", Integer.toString(a.cntlidMin()));
        attr.put("cntlid_max", Integer.toString(a.cntlidMax()));
        putIfSet(attr, "serial", a.serial());
        putIfSet(attr, "model", a.model());
        putIfSet(attr, "version", a.version());
        putIfSet(attr, "firmware", a.firmware());
        if (a.qidMax() != null) {
            attr.put("qid_max", Integer.toString(a.qidMax()));
        }
        if (a.ieeeOui() != null) {
            attr.put("ieee_oui", String.format("0x%06x", a.ieeeOui()));
        }
        m.put("attr", attr);
        List<Object> namespaces = new ArrayList<>();
        for (NamespaceConfig ns : s.namespaces()) {
            if (ns.backend() instanceof FileDevice(var path)) {
                Map<String, Object> n = new TreeMap<>();
                Map<String, Object> device = new TreeMap<>();
                device.put("path", path.toString());
                identifiers(device, ns);
                n.put("device", device);
                n.put("enable", ns.enable() ? 1 : 0);
                n.put("nsid", ns.nsid());
                n.put("ana_grpid", ns.anaGrpid());
                namespaces.add(n);
            }
        }
        m.put("namespaces", namespaces);
        m.put("nqn", s.nqn());
        return m;
    }

    private static Map<String, Object> settings(TargetConfig config) {
        Nvmf4jSettings s = config.nvmf4j();
        Map<String, Object> m = new TreeMap<>();
        m.put("provider", s.provider().jsonName());
        m.put("poll_groups", new TreeMap<>(Map.of("count", s.pollGroups(), "spin_budget_us",
                s.spinBudgetMicros())));
        m.put("buffer_pool", new TreeMap<>(Map.of("count", s.bufferCount(), "buffer_size",
                Values.formatSize(s.bufferSize()))));
        m.put("queues", new TreeMap<>(Map.of("max_queue_size", s.maxQueueSize(), "inline_data_size",
                s.inlineDataSize(), "mdts", s.mdts())));
        m.put("keep_alive", Map.of("discovery_kato_ms", s.discoveryKatoMillis()));
        if (s.metricsPort() != null) {
            m.put("metrics_port", s.metricsPort());
        }
        m.put("default_block_size", s.defaultBlockSize());
        m.put("backend_io", new TreeMap<>(Map.of("mode", s.backendIo(), "timeout_ms", s.backendTimeoutMillis())));
        if (s.maxControllersPerHost() != Nvmf4jSettings.DEFAULT_MAX_CONTROLLERS_PER_HOST
                || s.maxControllersPerAddress() != Nvmf4jSettings.DEFAULT_MAX_CONTROLLERS_PER_ADDRESS) {
            m.put("controller_share", new TreeMap<>(Map.of("per_host_nqn", s.maxControllersPerHost(),
                    "per_address", s.maxControllersPerAddress())));
        }
        List<Object> ram = new ArrayList<>();
        List<Object> options = new ArrayList<>();
        for (SubsystemConfig sub : config.subsystems()) {
            for (NamespaceConfig ns : sub.namespaces()) {
                if (ns.backend() instanceof RamDevice(long size)) {
                    Map<String, Object> r = new TreeMap<>();
                    r.put("subsystem", sub.nqn());
                    r.put("nsid", ns.nsid());
                    r.put("size", Values.formatSize(size));
                    r.put("block_size", ns.blockSize());
                    r.put("enable", ns.enable() ? 1 : 0);
                    r.put("ana_grpid", ns.anaGrpid());
                    identifiers(r, ns);
                    ram.add(r);
                } else if (ns.blockSize() != s.defaultBlockSize()) {
                    options.add(new TreeMap<>(Map.of("subsystem", sub.nqn(), "nsid", ns.nsid(), "block_size",
                            ns.blockSize())));
                }
            }
        }
        m.put("ram_namespaces", ram);
        m.put("namespace_options", options);
        return m;
    }

    private static void identifiers(Map<String, Object> into, NamespaceConfig ns) {
        byte[] nguid = ns.nguid();
        if (nguid != null) {
            // Linux shows it with %pUb: the 16 bytes in order, grouped 8-4-4-4-12.
            String hex = java.util.HexFormat.of().formatHex(nguid);
            into.put("nguid", hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                    + hex.substring(16, 20) + "-" + hex.substring(20));
        }
        if (ns.uuid() != null) {
            into.put("uuid", ns.uuid().toString());
        }
    }

    private static void putIfSet(Map<String, Object> m, String key, String value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    /** A minimal emitter in Python's json.dumps(indent=2) layout; values are Map, List, String or Number. */
    private static void write(StringBuilder sb, Object value, int depth) {
        switch (value) {
            case Map<?, ?> map when map.isEmpty() -> sb.append("{}");
            case Map<?, ?> map -> {
                sb.append("{\n");
                int i = 0;
                for (Map.Entry<?, ?> e : new TreeMap<>(map).entrySet()) {
                    indent(sb, depth + 1);
                    quote(sb, (String) e.getKey());
                    sb.append(": ");
                    write(sb, e.getValue(), depth + 1);
                    sb.append(++i < map.size() ? ",\n" : "\n");
                }
                indent(sb, depth);
                sb.append('}');
            }
            case List<?> list when list.isEmpty() -> sb.append("[]");
            case List<?> list -> {
                sb.append("[\n");
                for (int i = 0; i < list.size(); i++) {
                    indent(sb, depth + 1);
                    write(sb, list.get(i), depth + 1);
                    sb.append(i + 1 < list.size() ? ",\n" : "\n");
                }
                indent(sb, depth);
                sb.append(']');
            }
            case String s -> quote(sb, s);
            case Number n -> sb.append(n);
            default -> throw new IllegalStateException("cannot write " + value.getClass());
        }
    }

    private static void indent(StringBuilder sb, int depth) {
        sb.append("  ".repeat(depth));
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        JsonStringEncoder.getInstance().quoteAsString(s, sb);
        sb.append('"');
    }
}
