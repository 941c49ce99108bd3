package io.nvmf4j.config;

import io.nvmf4j.config.DeviceConfig.FileDevice;
import io.nvmf4j.config.DeviceConfig.RamDevice;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The quick form of {@code nvmf4j serve}: one subsystem, one port (RDMA unless {@link #transport} says tcp),
 * namespaces from files or RAM.
 *
 * <pre>{@code
 * // nvmf4j serve --file disk.img --nqn nqn.2024-01.io.nvmf4j:disk --listen 127.0.0.1:4420
 * LoadedConfig loaded = QuickConfig.builder()
 *         .nqn("nqn.2024-01.io.nvmf4j:disk")
 *         .file(Path.of("disk.img"))
 *         .listen("127.0.0.1:4420")
 *         .build();
 * }</pre>
 *
 * {@link #build()} produces the model a file would: it writes the nvmetcli JSON for these values and loads it with
 * {@link ConfigLoader}, so every check a file gets, the command line gets too. Problems name the flag
 * ({@code --file}, {@code --ram}, {@code --listen}...) instead of a JSON path.
 */
public final class QuickConfig {

    /** The IANA-assigned NVMe-oF port (NVMe-oF 1.1, 7.4.8). */
    public static final int DEFAULT_PORT = 4420;
    static final String SOURCE = "command line";

    private String nqn;
    private final List<DeviceConfig> namespaces = new ArrayList<>();
    private String listen = "127.0.0.1:" + DEFAULT_PORT;
    private String transport = PortAddress.TRTYPE_RDMA;
    private Integer blockSize;
    private final List<String> allowedHosts = new ArrayList<>();
    private Provider provider = Provider.AUTO;
    private Integer metricsPort;
    private Integer pollGroups;
    private final List<String> badSizes = new ArrayList<>();

    private QuickConfig() {
    }

    public static QuickConfig builder() {
        return new QuickConfig();
    }

    /** The subsystem NQN ({@code --nqn}). */
    public QuickConfig nqn(String nqn) {
        this.nqn = nqn;
        return this;
    }

    /** Adds a file or block-device namespace ({@code --file}); namespaces get nsids 1, 2, ... in call order. */
    public QuickConfig file(Path path) {
        namespaces.add(new FileDevice(path.toAbsolutePath()));
        return this;
    }

    /** Adds a RAM namespace of the given size ({@code --ram 1G}). */
    public QuickConfig ram(String size) {
        Long bytes = Values.parseSize(size);
        if (bytes == null) {
            badSizes.add(size);
        } else {
            namespaces.add(new RamDevice(bytes));
        }
        return this;
    }

    public QuickConfig ram(long bytes) {
        namespaces.add(new RamDevice(bytes));
        return this;
    }

    /** {@code ADDRESS[:PORT]} with an IP literal; IPv6 in brackets ({@code [::1]:4420}). Default 127.0.0.1:4420. */
    public QuickConfig listen(String listen) {
        this.listen = listen;
        return this;
    }

    /** The port's transport, {@code "rdma"} (default) or {@code "tcp"} ({@code --transport}). */
    public QuickConfig transport(String trtype) {
        this.transport = trtype;
        return this;
    }

    /** LBA size of every namespace, 512 (default) or 4096 ({@code --block-size}). */
    public QuickConfig blockSize(int blockSize) {
        this.blockSize = blockSize;
        return this;
    }

    /** Restricts access to this host NQN (may be repeated); without it any host may connect. */
    public QuickConfig allowHost(String hostNqn) {
        allowedHosts.add(hostNqn);
        return this;
    }

    public QuickConfig provider(Provider provider) {
        this.provider = provider;
        return this;
    }

    public QuickConfig metricsPort(int port) {
        this.metricsPort = port;
        return this;
    }

    public QuickConfig pollGroups(int count) {
        this.pollGroups = count;
        return this;
    }

    /** Validates and returns the configuration, or every problem at once. */
    public LoadedConfig build() throws ConfigException {
        List<ConfigProblem> problems = new ArrayList<>();
        if (nqn == null || nqn.isEmpty()) {
            problems.add(new ConfigProblem("--nqn", 0, 0, "is required"));
        }
        for (String bad : badSizes) {
            problems.add(new ConfigProblem("--ram", 0, 0,
                    "must be a size such as \"1G\", \"512M\" or a number of bytes, got \"" + bad + "\""));
        }
        if (namespaces.isEmpty() && badSizes.isEmpty()) {
            problems.add(new ConfigProblem("--file", 0, 0, "give at least one --file or --ram"));
        }
        if (!transport.equals(PortAddress.TRTYPE_RDMA) && !transport.equals(PortAddress.TRTYPE_TCP)) {
            problems.add(new ConfigProblem("--transport", 0, 0, "must be rdma or tcp, got \"" + transport + "\""));
        }
        String[] hostPort = splitListen(listen, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(SOURCE, problems);
        }
        Nvmf4jSettings d = Nvmf4jSettings.defaults();
        int bs = blockSize == null ? d.defaultBlockSize() : blockSize;
        Nvmf4jSettings settings = new Nvmf4jSettings(provider, pollGroups == null ? d.pollGroups() : pollGroups,
                d.spinBudgetMicros(), d.bufferCount(), d.bufferSize(), d.maxQueueSize(), d.inlineDataSize(),
                d.mdts(), d.discoveryKatoMillis(), metricsPort, bs);
        List<NamespaceConfig> nsList = new ArrayList<>();
        for (int i = 0; i < namespaces.size(); i++) {
            nsList.add(new NamespaceConfig(i + 1, true, namespaces.get(i), bs, null, null, 1));
        }
        String host = hostPort[0];
        String adrfam = host.contains(":") ? "ipv6" : "ipv4";
        PortConfig port = new PortConfig(1, new PortAddress(transport, adrfam, host, hostPort[1],
                PortAddress.TREQ_NOT_SPECIFIED), PortParams.defaults(), List.of(nqn), List.of(), List.of());
        SubsystemConfig subsystem = new SubsystemConfig(nqn, SubsystemAttributes.defaults(allowedHosts.isEmpty()),
                allowedHosts, nsList);
        TargetConfig model = new TargetConfig(allowedHosts.stream().distinct().map(HostConfig::new).toList(),
                List.of(port), List.of(subsystem), settings);
        try {
            LoadedConfig loaded = ConfigLoader.standard().parse(ConfigWriter.toJson(model), SOURCE, null);
            return new LoadedConfig(loaded.config(), loaded.warnings().stream().map(QuickConfig::asFlag).toList(),
                    SOURCE);
        } catch (ConfigException e) {
            throw new ConfigException(SOURCE, e.problems().stream().map(QuickConfig::asFlag).toList());
        }
    }

    private static String[] splitListen(String listen, List<ConfigProblem> problems) {
        String host;
        String port = Integer.toString(DEFAULT_PORT);
        if (listen.startsWith("[")) {
            int close = listen.indexOf(']');
            if (close < 0) {
                problems.add(new ConfigProblem("--listen", 0, 0, "missing ']' in \"" + listen + "\""));
                return null;
            }
            host = listen.substring(1, close);
            String rest = listen.substring(close + 1);
            if (rest.startsWith(":")) {
                port = rest.substring(1);
            } else if (!rest.isEmpty()) {
                problems.add(new ConfigProblem("--listen", 0, 0, "expected ADDRESS[:PORT], got \"" + listen + "\""));
                return null;
            }
        } else if (listen.indexOf(':') != listen.lastIndexOf(':')) {
            host = listen; // a bare IPv6 literal
        } else if (listen.contains(":")) {
            host = listen.substring(0, listen.indexOf(':'));
            port = listen.substring(listen.indexOf(':') + 1);
        } else {
            host = listen;
        }
        return new String[] {host, port};
    }

    /** Names the flag a generated JSON field came from; the generated text's line numbers mean nothing here. */
    private static ConfigProblem asFlag(ConfigProblem p) {
        String path = p.path();
        String flag;
        if (path.startsWith("ports[0].addr")) {
            flag = "--listen";
        } else if (path.contains(".device.path")) {
            flag = "--file";
        } else if (path.startsWith("nvmf4j.ram_namespaces")) {
            flag = path.endsWith("block_size") ? "--block-size" : "--ram";
        } else if (path.endsWith("block_size")) {
            flag = "--block-size";
        } else if (path.startsWith("hosts") || path.contains("allowed_hosts")) {
            flag = "--allow-host";
        } else if (path.equals("subsystems[0].nqn")) {
            flag = "--nqn";
        } else if (path.equals("nvmf4j.metrics_port")) {
            flag = "--metrics-port";
        } else if (path.equals("nvmf4j.poll_groups.count")) {
            flag = "--poll-groups";
        } else {
            flag = path;
        }
        return new ConfigProblem(flag, 0, 0, p.message());
    }
}
