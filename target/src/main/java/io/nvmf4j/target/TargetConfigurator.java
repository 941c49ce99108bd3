package io.nvmf4j.target;

import io.nvmf4j.config.AnaGroup;
import io.nvmf4j.config.DeviceConfig;
import io.nvmf4j.config.HostConfig;
import io.nvmf4j.config.NamespaceConfig;
import io.nvmf4j.config.Nvmf4jSettings;
import io.nvmf4j.config.PortAddress;
import io.nvmf4j.config.PortConfig;
import io.nvmf4j.config.Referral;
import io.nvmf4j.config.SubsystemAttributes;
import io.nvmf4j.config.SubsystemConfig;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.log.AnaState;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.target.backend.BlockDeviceBackend;
import io.nvmf4j.target.backend.FileBackend;
import io.nvmf4j.target.backend.NamespaceBackend;
import io.nvmf4j.target.backend.RamBackend;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Builds a running {@link NvmeTarget} from a loaded configuration (the nvmetcli {@code saveconfig.json} model of
 * module {@code config}), doing what nvmetcli's restore does through configfs: subsystems with their attributes and
 * allowed hosts, namespaces with their backends opened, ports with their parameters and exported subsystems.
 *
 * <p>A namespace path that names a block device gets a {@link BlockDeviceBackend}, a regular file a
 * {@link FileBackend} (O_DIRECT where possible); RAM namespaces a {@link RamBackend}. A namespace without a UUID
 * gets one derived from the subsystem NQN and NSID (name-based, RFC 4122 version 3), so it stays the same across
 * restarts and hosts can tell namespaces apart. A disabled namespace is opened and added disabled; one with no
 * path at all (nvmetcli saves such namespaces) is skipped with a log line.
 */
public final class TargetConfigurator {

    private static final System.Logger LOG = System.getLogger(TargetConfigurator.class.getName());
    /** S_IFMT / S_IFBLK of stat(2) st_mode. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    private TargetConfigurator() {
    }

    /** Builds and returns the target; on failure everything opened so far is closed again. */
    public static NvmeTarget build(TargetConfig config) throws IOException {
        NvmeTarget target = new NvmeTarget();
        try {
            Nvmf4jSettings settings = config.nvmf4j() != null ? config.nvmf4j() : Nvmf4jSettings.defaults();
            for (SubsystemConfig sc : config.subsystems()) {
                target.addSubsystem(subsystem(sc, config.hosts()));
            }
            for (PortConfig pc : config.ports()) {
                Port port = port(pc, settings);
                target.addPort(port);
                for (String nqn : pc.subsystems()) {
                    Subsystem s = target.subsystem(SubsystemNqn.of(nqn));
                    if (s == null) {
                        throw new IOException("port " + pc.portid() + " exports unknown subsystem " + nqn);
                    }
                    port.addSubsystem(s);
                }
            }
            return target;
        } catch (IOException | RuntimeException e) {
            target.close();
            throw e;
        }
    }

    /** One subsystem with its namespaces opened; its allowed hosts have no DH-HMAC-CHAP keys. */
    public static Subsystem subsystem(SubsystemConfig sc) throws IOException {
        return subsystem(sc, List.of());
    }

    /**
     * One subsystem with its namespaces opened (the running daemon's create-subsystem uses it too). An allowed host
     * whose {@code hosts} entry has a DH-HMAC-CHAP key must authenticate (nvmetcli's {@code hosts[].dhchap}: Linux
     * {@code nvmet_setup_auth()} looks the keys up through the subsystem's allowed hosts the same way).
     */
    public static Subsystem subsystem(SubsystemConfig sc, List<HostConfig> hosts) throws IOException {
        SubsystemAttributes attr = sc.attr();
        SubsystemNqn name = SubsystemNqn.of(sc.nqn());
        if (!name.isStandard()) {
            // nvmet accepts any name (nvmetcli's examples use "testnqn"); so do we, with a word in the log
            LOG.log(Level.WARNING, "subsystem \"{0}\" is not an NQN of the standard forms; serving it anyway, as nvmet",
                    name);
        }
        Subsystem.Builder b = Subsystem.builder(name)
                .allowAnyHost(attr.allowAnyHost())
                .controllerIdRange(attr.cntlidMin(), attr.cntlidMax());
        if (attr.serial() != null) {
            b.serial(attr.serial());
        }
        if (attr.model() != null) {
            b.model(attr.model());
        }
        if (attr.firmware() != null) {
            b.firmwareRevision(attr.firmware());
        }
        if (attr.qidMax() != null) {
            b.maxIoQueues(attr.qidMax());
        }
        if (attr.version() != null) {
            b.version(parseVersion(attr.version()));
        }
        if (attr.ieeeOui() != null) {
            b.ieeeOui(attr.ieeeOui());
        }
        for (String host : sc.allowedHosts()) {
            b.allowHost(host, keysOf(hosts, host));
        }
        Subsystem subsystem = b.build();
        try {
            for (NamespaceConfig nc : sc.namespaces()) {
                SubsystemNamespace ns = namespace(sc.nqn(), nc);
                if (ns != null) {
                    subsystem.addNamespace(ns);
                    if (!nc.enable()) {
                        subsystem.enableNamespace(nc.nsid(), false);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            subsystem.namespaces().forEach(ns -> ns.backend().close());
            throw e;
        }
        return subsystem;
    }

    /** The keys of {@code hostNqn} in {@code hosts}, null when it has none (allowed without authentication). */
    public static DhchapKeys keysOf(List<HostConfig> hosts, String hostNqn) {
        return hosts.stream().filter(h -> h.nqn().equals(hostNqn)).findFirst().flatMap(HostConfig::keys)
                .orElse(null);
    }

    /** Opens one namespace's backend; null for a namespace without a device path (nvmetcli saves such). */
    public static SubsystemNamespace namespace(String subnqn, NamespaceConfig nc) throws IOException {
        NamespaceBackend backend = switch (nc.backend()) {
            case DeviceConfig.RamDevice ram -> RamBackend.allocate(ram.sizeBytes(), nc.blockSize());
            case DeviceConfig.FileDevice file -> openPath(subnqn, nc, file.path());
        };
        if (backend == null) {
            return null;
        }
        UUID uuid = nc.uuid() != null ? nc.uuid()
                : UUID.nameUUIDFromBytes((subnqn + "/" + nc.nsid()).getBytes(StandardCharsets.UTF_8));
        return SubsystemNamespace.of(nc.nsid(), backend, nc.nguid(), uuid, null).anaGroupId(nc.anaGrpid());
    }

    private static NamespaceBackend openPath(String subnqn, NamespaceConfig nc, Path path) throws IOException {
        if (path == null || path.toString().isEmpty()) {
            LOG.log(Level.WARNING, "{0} namespace {1}: no device path, not created", subnqn, nc.nsid());
            return null;
        }
        try {
            return isBlockDevice(path)
                    ? BlockDeviceBackend.open(path, nc.blockSize())
                    : FileBackend.open(path, nc.blockSize());
        } catch (IOException e) {
            throw new IOException(subnqn + " namespace " + nc.nsid() + ": " + e.getMessage(), e);
        }
    }

    static boolean isBlockDevice(Path path) throws IOException {
        if (Files.isRegularFile(path)) {
            return false;
        }
        Map<String, Object> attrs = Files.readAttributes(path, "unix:mode");
        return ((Integer) attrs.get("mode") & S_IFMT) == S_IFBLK;
    }

    public static Port port(PortConfig pc, Nvmf4jSettings settings) {
        PortAddress addr = pc.addr();
        boolean tcp = "tcp".equals(addr.trtype());
        Port.Builder b = (tcp ? Port.tcp(pc.portid(), addr.traddr(), addr.trsvcid())
                : Port.rdma(pc.portid(), addr.traddr(), addr.trsvcid()))
                .adrfam("ipv6".equals(addr.adrfam()) ? DiscoveryLogEntry.ADRFAM_IPV6 : DiscoveryLogEntry.ADRFAM_IPV4)
                .treq(switch (addr.treq() == null ? PortAddress.TREQ_NOT_SPECIFIED : addr.treq()) {
                    case "required" -> DiscoveryLogEntry.TREQ_REQUIRED;
                    case "not required" -> DiscoveryLogEntry.TREQ_NOT_REQUIRED;
                    default -> DiscoveryLogEntry.TREQ_NOT_SPECIFIED;
                })
                .maxQueueSize(pc.param().effectiveMaxQueueSize(settings))
                .mdts(pc.param().effectiveMdts(settings));
        // a TCP port left at -1 keeps nvmet-tcp's own default (the section's inline size is the RDMA one)
        if (!tcp || pc.param().inlineDataSize() >= 0) {
            b.inlineDataSize(pc.param().effectiveInlineDataSize(settings));
        }
        Port port = b.build();
        // ANA groups of the port (nvmetcli ports/N/ana_groups/G/ana/state; group 1 exists anyway)
        for (AnaGroup g : pc.anaGroups()) {
            port.anaState(g.grpid(), AnaState.fromLabel(g.state() == null ? "optimized" : g.state())
                    .orElseThrow(() -> new IllegalArgumentException("port " + pc.portid() + " ANA group " + g.grpid()
                            + ": unknown state \"" + g.state() + "\"")));
        }
        for (Referral r : pc.referrals()) {
            if (r.enable()) {
                port.addReferral(referral(pc.portid(), r));
            }
        }
        return port;
    }

    /** A referral as nvmetcli saves it (addr: trtype, adrfam, traddr, trsvcid, portid, treq), nvmet's names. */
    public static Port.Referral referral(int portid, Referral r) {
        java.util.Map<String, String> a = r.addr();
        String where = "port " + portid + " referral " + r.name();
        int trtype = switch (a.getOrDefault("trtype", "rdma")) {
            case "rdma" -> DiscoveryLogEntry.TRTYPE_RDMA;
            case "fc" -> DiscoveryLogEntry.TRTYPE_FC;
            case "tcp" -> DiscoveryLogEntry.TRTYPE_TCP;
            case "loop" -> DiscoveryLogEntry.TRTYPE_LOOP;
            default -> throw new IllegalArgumentException(where + ": unknown trtype \"" + a.get("trtype") + "\"");
        };
        String traddr = a.getOrDefault("traddr", "");
        int adrfam = switch (a.getOrDefault("adrfam", traddr.contains(":") ? "ipv6" : "ipv4")) {
            case "ipv4" -> DiscoveryLogEntry.ADRFAM_IPV4;
            case "ipv6" -> DiscoveryLogEntry.ADRFAM_IPV6;
            case "ib" -> DiscoveryLogEntry.ADRFAM_IB;
            case "fc" -> DiscoveryLogEntry.ADRFAM_FC;
            case "loop" -> DiscoveryLogEntry.ADRFAM_LOOP;
            default -> throw new IllegalArgumentException(where + ": unknown adrfam \"" + a.get("adrfam") + "\"");
        };
        int treq = switch (a.getOrDefault("treq", PortAddress.TREQ_NOT_SPECIFIED)) {
            case "required" -> DiscoveryLogEntry.TREQ_REQUIRED;
            case "not required" -> DiscoveryLogEntry.TREQ_NOT_REQUIRED;
            default -> DiscoveryLogEntry.TREQ_NOT_SPECIFIED;
        };
        int refPort;
        try {
            refPort = Integer.parseInt(a.getOrDefault("portid", "0"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": portid \"" + a.get("portid") + "\" is not a number");
        }
        return new Port.Referral(trtype, adrfam, traddr, a.getOrDefault("trsvcid", "4420"), refPort, treq);
    }

    /** "1.3", "1.4", "2.0", "1.3.0" → VS register value. */
    static int parseVersion(String text) {
        String[] parts = text.trim().split("\\.");
        if (parts.length < 2 || parts.length > 3) {
            throw new IllegalArgumentException("NVMe version \"" + text + "\" is not major.minor[.tertiary]");
        }
        int major = Integer.parseInt(parts[0]);
        int minor = Integer.parseInt(parts[1]);
        int tertiary = parts.length == 3 ? Integer.parseInt(parts[2]) : 0;
        return major << 16 | minor << 8 | tertiary;
    }
}
