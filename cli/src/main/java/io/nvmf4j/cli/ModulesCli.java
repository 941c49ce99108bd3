package io.nvmf4j.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code nvmf4j modules}: the version and the module map of this build. */
@Command(name = "modules", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Print the version and the modules of this build.")
public final class ModulesCli implements Callable<Integer> {

    /** Module name and what it holds, in dependency order (docs/ARCHITECTURE.md, section 1). */
    static final String[][] MODULES = {
        {"protocol", "NVMe / NVMe-oF wire formats (capsules, SGLs, identify, log pages, RDMA CM data)"},
        {"common-verbs", "RDMA verbs API; providers softiwarp (pure-Java iWARP) and ibverbs (FFM)"},
        {"config", "target configuration (nvmetcli saveconfig.json + nvmf4j section)"},
        {"target", "NVMe-oF target: subsystems, namespaces, controllers, RDMA transport"},
        {"initiator", "NVMe-oF host library: discovery, queues, async namespace I/O"},
        {"cli", "this command: serve, discover, id-ctrl, id-ns, read, write, ..., perf, mount"},
    };

    static void print(PrintStream out) {
        out.println("nvmf4j " + VersionProvider.version() + " on Java " + Runtime.version());
        out.println("modules:");
        for (String[] m : MODULES) {
            out.printf("  %-13s %s%n", m[0], m[1]);
        }
    }

    @Override
    public Integer call() {
        print(System.out);
        return 0;
    }
}
