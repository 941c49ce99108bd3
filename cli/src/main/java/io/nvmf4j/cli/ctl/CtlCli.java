package io.nvmf4j.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code nvmf4j ctl}: the operator's changes to a running target, each one JSON-RPC method (see {@code nvmf4j rpc
 * rpc_get_methods}); what nvmetcli's shell does on configfs.
 */
@Command(name = "ctl", mixinStandardHelpOptions = true,
        description = "Change a running nvmf4j serve without restarting it (hosts stay connected).",
        subcommands = {CtlCli.ListCmd.class, CtlCli.CreateSubsystem.class, CtlCli.DeleteSubsystem.class,
            CtlCli.AddNamespace.class, CtlCli.RemoveNamespace.class, CtlCli.ResizeNamespace.class,
            CtlCli.AddHost.class, CtlCli.RemoveHost.class, CtlCli.AddPort.class,
            CtlCli.RemovePort.class, CtlCli.SetAttr.class, CtlCli.Disconnect.class, CtlCli.Save.class,
            CtlCli.Reload.class})
public final class CtlCli implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    SocketOption socket = new SocketOption();

    final PrintStream out;
    final PrintStream err;

    public CtlCli() {
        this(System.out, System.err);
    }

    CtlCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(out);
        return 2;
    }

    /** A ctl subcommand: a method and its parameters. */
    abstract static class Sub implements Callable<Integer> {
        @ParentCommand
        CtlCli parent;

        final Map<String, Object> params = new LinkedHashMap<>();

        /** The JSON-RPC method this subcommand calls. */
        private final String method;

        Sub(String method) {
            this.method = method;
        }

        void print(JsonNode result) {
            parent.out.println("ok");
        }

        void put(String name, Object value) {
            if (value != null) {
                params.put(name, value.toString());
            }
        }

        @Override
        public Integer call() {
            fill();
            return Ctl.run("ctl", parent.out, parent.err, parent.socket, method, params, this::print);
        }

        abstract void fill();
    }

    @Command(name = "list", description = "subsystems, namespaces, hosts, ports and connected controllers")
    static final class ListCmd extends Sub {
        ListCmd() {
            super("nvmf_get_subsystems");
        }

        @Override
        void fill() {
        }

        @Override
        void print(JsonNode result) {
            for (JsonNode s : result) {
                if ("Discovery".equals(s.path("subtype").asText())) {
                    continue;
                }
                PrintStream o = parent.out;
                o.printf("%s  serial %s  model %s%n", s.path("nqn").asText(), s.path("serial_number").asText(),
                        s.path("model_number").asText());
                for (JsonNode a : s.path("listen_addresses")) {
                    o.printf("  port   %s %s:%s%n", a.path("trtype").asText(), a.path("traddr").asText(),
                            a.path("trsvcid").asText());
                }
                if (s.path("allow_any_host").asBoolean()) {
                    o.println("  hosts  any");
                }
                for (JsonNode h : s.path("hosts")) {
                    o.printf("  host   %s%n", h.path("nqn").asText());
                }
                for (JsonNode n : s.path("namespaces")) {
                    o.printf("  ns %-3d %s  %d bytes  %d-byte blocks%s%n", n.path("nsid").asLong(),
                            n.path("bdev_name").asText(), n.path("size").asLong(), n.path("block_size").asInt(),
                            n.path("enabled").asBoolean() ? "" : "  (disabled)");
                }
                try {
                    JsonNode controllers = RpcClient.call(parent.socket.path(), parent.socket.timeout(),
                            "nvmf_subsystem_get_controllers", Map.of("nqn", s.path("nqn").asText()), false).result();
                    for (JsonNode c : controllers) {
                        o.printf("  ctrl %d  %s from %s  %d I/O queue(s)  kato %d s%n", c.path("cntlid").asInt(),
                                c.path("hostnqn").asText(), c.path("address").asText(), c.path("io_queues").asInt(),
                                c.path("keep_alive_timeout_s").asInt());
                    }
                } catch (Exception e) {
                    o.println("  controllers: " + e.getMessage());
                }
            }
        }
    }

    @Command(name = "create-subsystem", description = "a new subsystem (export it with add-port --nqn)")
    static final class CreateSubsystem extends Sub {
        @Parameters(index = "0", paramLabel = "NQN")
        String nqn;
        @Option(names = "--serial") String serial;
        @Option(names = "--model") String model;
        @Option(names = "--allow-any-host") boolean any;

        CreateSubsystem() {
            super("nvmf_create_subsystem");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("serial_number", serial);
            put("model_number", model);
            put("allow_any_host", any);
        }
    }

    @Command(name = "delete-subsystem", description = "disconnects its hosts and closes its namespaces")
    static final class DeleteSubsystem extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;

        DeleteSubsystem() {
            super("nvmf_delete_subsystem");
        }

        @Override
        void fill() {
            put("nqn", nqn);
        }
    }

    @Command(name = "add-namespace", description = "a file, block device (--path) or RAM (--size) namespace")
    static final class AddNamespace extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;
        @Option(names = "--path", paramLabel = "FILE") String path;
        @Option(names = "--size", paramLabel = "SIZE", description = "RAM namespace of SIZE, e.g. 1G") String size;
        @Option(names = "--nsid") Long nsid;
        @Option(names = "--block-size", paramLabel = "512|4096") Integer blockSize;
        @Option(names = "--uuid") String uuid;

        AddNamespace() {
            super("nvmf_subsystem_add_ns");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("path", path);
            put("size", size);
            put("nsid", nsid);
            put("block_size", blockSize);
            put("uuid", uuid);
        }

        @Override
        void print(JsonNode result) {
            parent.out.println("namespace " + result.asLong());
        }
    }

    @Command(name = "remove-namespace", description = "hosts see it go (Namespace Attribute Changed)")
    static final class RemoveNamespace extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;
        @Parameters(index = "1", paramLabel = "NSID") long nsid;

        RemoveNamespace() {
            super("nvmf_subsystem_remove_ns");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("nsid", nsid);
        }
    }

    @Command(name = "resize-namespace", description = "grow/shrink the file to --size, or take its current size")
    static final class ResizeNamespace extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;
        @Parameters(index = "1", paramLabel = "NSID") long nsid;
        @Option(names = "--size", paramLabel = "SIZE") String size;

        ResizeNamespace() {
            super("nvmf4j_subsystem_resize_ns");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("nsid", nsid);
            put("size", size);
        }

        @Override
        void print(JsonNode result) {
            parent.out.println("namespace " + nsid + ": " + result.path("size").asLong() + " bytes");
        }
    }

    @Command(name = "add-host", description = {"allow a host NQN; with --dhchap-key it must authenticate"
            + " (DH-HMAC-CHAP), with --dhchap-ctrl-key too the controller authenticates to it as well"})
    static final class AddHost extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;
        @Parameters(index = "1", paramLabel = "HOSTNQN") String host;
        @Option(names = "--dhchap-key", paramLabel = "KEY|FILE", description = {"the host's secret (DHHC-1:hh:...:,"
                + " from nvmf4j gen-dhchap-key) or a key file the daemon reads (mode 0600); the keys belong to the"
                + " host: every subsystem that allows it uses them"}) String dhchapKey;
        @Option(names = "--dhchap-ctrl-key", paramLabel = "KEY|FILE",
                description = "the controller's secret for bidirectional authentication") String dhchapCtrlKey;

        AddHost() {
            super("nvmf_subsystem_add_host");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("host", host);
            // SPDK's parameter names (nvmf_subsystem_add_host); SPDK's values name keyring keys, ours are the keys
            put("dhchap_key", dhchapKey);
            put("dhchap_ctrlr_key", dhchapCtrlKey);
        }
    }

    @Command(name = "remove-host", description = "disallow a host NQN; its controllers are disconnected")
    static final class RemoveHost extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;
        @Parameters(index = "1", paramLabel = "HOSTNQN") String host;

        RemoveHost() {
            super("nvmf_subsystem_remove_host");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("host", host);
        }
    }

    @Command(name = "add-port", description = "listen on ADDR:PORT; with --nqn also export that subsystem there")
    static final class AddPort extends Sub {
        @Parameters(index = "0", paramLabel = "ADDR:PORT") String address;
        @Option(names = "--portid") Integer portid;
        @Option(names = "--nqn", description = "export this subsystem through the port") String nqn;
        @Option(names = {"-t", "--transport"}, paramLabel = "rdma|tcp",
                description = "the port's transport (default rdma)")
        String transport;

        AddPort() {
            super("nvmf4j_add_port");
        }

        @Override
        void fill() {
            int colon = address.lastIndexOf(':');
            put("traddr", colon < 0 ? address : address.substring(0, colon).replace("[", "").replace("]", ""));
            put("trsvcid", colon < 0 ? "4420" : address.substring(colon + 1));
            put("portid", portid);
            put("trtype", transport);
        }

        @Override
        void print(JsonNode result) {
            int id = result.path("portid").asInt();
            parent.out.println("port " + id);
            if (nqn != null) {
                SocketOption named = new SocketOption(); // the daemon was named once already
                named.socket = parent.socket.path();
                named.timeoutSeconds = parent.socket.timeoutSeconds;
                Ctl.run("ctl", parent.out, parent.err, named, "nvmf_subsystem_add_listener",
                        Map.of("nqn", nqn, "portid", Integer.toString(id)), r -> parent.out.println("exports " + nqn));
            }
        }
    }

    @Command(name = "remove-port", description = "stop accepting; controllers through it are disconnected")
    static final class RemovePort extends Sub {
        @Parameters(index = "0", paramLabel = "PORTID") int portid;

        RemovePort() {
            super("nvmf4j_remove_port");
        }

        @Override
        void fill() {
            put("portid", portid);
        }
    }

    @Command(name = "set-attr", description = "allow_any_host, serial or model of a subsystem")
    static final class SetAttr extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;
        @Parameters(index = "1", paramLabel = "NAME") String name;
        @Parameters(index = "2", paramLabel = "VALUE") String value;

        SetAttr() {
            super("nvmf4j_subsystem_set_attr");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("name", name);
            put("value", value);
        }
    }

    @Command(name = "disconnect", description = "disconnect one controller (the host may reconnect)")
    static final class Disconnect extends Sub {
        @Parameters(index = "0", paramLabel = "NQN") String nqn;
        @Parameters(index = "1", paramLabel = "CNTLID") int cntlid;

        Disconnect() {
            super("nvmf4j_disconnect_controller");
        }

        @Override
        void fill() {
            put("nqn", nqn);
            put("cntlid", cntlid);
        }
    }

    @Command(name = "save", description = "write the running configuration (nvmetcli schema) atomically")
    static final class Save extends Sub {
        @Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
                description = "default: the daemon's --config file") String path;

        Save() {
            super("save_config");
        }

        @Override
        void fill() {
            put("path", path == null ? null : java.nio.file.Path.of(path).toAbsolutePath());
        }

        @Override
        void print(JsonNode result) {
            parent.out.println("saved " + result.path("path").asText());
        }
    }

    @Command(name = "reload", description = {"re-read the daemon's --config and apply what differs, as kill -HUP"
            + " does (for a daemon started with SIGHUP ignored, e.g. under nohup)"})
    static final class Reload extends Sub {
        Reload() {
            super("nvmf4j_reload_config");
        }

        @Override
        void fill() {
        }

        @Override
        void print(JsonNode result) {
            for (JsonNode c : result.path("changes")) {
                parent.out.println(c.asText());
            }
            for (JsonNode p : result.path("problems")) {
                parent.out.println("problem: " + p.asText());
            }
            parent.out.println("reloaded: " + result.path("changes").size() + " change(s), "
                    + result.path("problems").size() + " problem(s)");
        }
    }
}
