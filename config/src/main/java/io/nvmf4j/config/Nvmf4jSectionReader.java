package io.nvmf4j.config;

import io.nvmf4j.config.DeviceConfig.FileDevice;
import io.nvmf4j.config.DeviceConfig.RamDevice;
import io.nvmf4j.config.JsonTree.JObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The {@code "nvmf4j"} section: settings, RAM namespaces and per-namespace block sizes. RAM namespaces and block
 * sizes are merged into the subsystems read from the nvmetcli part.
 */
final class Nvmf4jSectionReader extends FieldReader {

    private static final Set<String> NVMF4J_FIELDS = Set.of("provider", "poll_groups", "buffer_pool", "queues",
            "keep_alive", "metrics_port", "default_block_size", "ram_namespaces", "namespace_options",
            "backend_io", "controller_share");
    private static final Set<String> RAM_NAMESPACE_FIELDS = Set.of("subsystem", "nsid", "size", "block_size",
            "enable", "nguid", "uuid", "ana_grpid");
    private static final Set<String> NAMESPACE_OPTION_FIELDS = Set.of("subsystem", "nsid", "block_size");

    Nvmf4jSectionReader(FieldReader shared) {
        super(shared);
    }

    Nvmf4jSettings readSettings(JObject s) {
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
        JObject backend = section(f, "backend_io", Set.of("mode", "timeout_ms"));
        String backendMode = d.backendIo();
        JsonTree modeNode = field(backend, "mode");
        if (modeNode != null) {
            String m = string(modeNode, "nvmf4j.backend_io.mode");
            if (m != null && !Nvmf4jSettings.BACKEND_IO_MODES.contains(m)) {
                error(modeNode, "nvmf4j.backend_io.mode", "must be one of auto, uring, threads, got \"" + m + "\"");
            } else if (m != null) {
                backendMode = m;
            }
        }
        int backendTimeout = (int) intOr(field(backend, "timeout_ms"), "nvmf4j.backend_io.timeout_ms", 100,
                3_600_000, d.backendTimeoutMillis());
        JObject share = section(f, "controller_share", Set.of("per_host_nqn", "per_address"));
        int perHost = (int) intOr(field(share, "per_host_nqn"), "nvmf4j.controller_share.per_host_nqn", 1,
                0xFFEF, d.maxControllersPerHost());
        int perAddress = (int) intOr(field(share, "per_address"), "nvmf4j.controller_share.per_address", 1,
                0xFFEF, d.maxControllersPerAddress());
        return new Nvmf4jSettings(provider, pollGroups, spin, bufferCount, bufferSize, maxQueue, inline, mdts, kato,
                metricsPort, blockSize, backendMode, backendTimeout, perHost, perAddress);
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

    void readRamNamespaces(JObject s, Map<String, SubsystemDraft> subsystems, int defaultBlockSize) {
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
            draft.namespaces.put(nsid, new NamespaceConfig(nsid, enable, new RamDevice(size), blockSize, nguid,
                    uuid, anaGrpid));
        }
    }

    void readNamespaceOptions(JObject s, Map<String, SubsystemDraft> subsystems) {
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
            if (ns == null || !(ns.backend() instanceof FileDevice)) {
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
}
