package io.nvmf4j.cli.host;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nvmf4j identify}: connects, then prints Identify Controller and each active namespace in brief. */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "identify", description = "Connect and print the controller and its namespaces "
        + "(like nvme id-ctrl and id-ns, in brief).", sortOptions = false)
public final class IdentifyCli implements Callable<Integer> {

    @Mixin
    ConnectFlags fabric;

    @Option(names = "--nsid", paramLabel = "NSID", description = "Only this namespace (default: all active ones).")
    Long nsid;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        CommandLogging.configure(output.verbose);
        PrintWriter out = spec.commandLine().getOut();
        // One I/O queue is enough: identify moves no data; the admin queue carries everything.
        try (NvmeController controller = Connections.connect(fabric, b -> b.ioQueues(1))) {
            List<Namespace> namespaces = nsid == null ? controller.namespaces()
                    : List.of(controller.namespace(nsid).orElseThrow(() -> new CommandFailure(
                            "identify: namespace " + nsid + " is not active on " + fabric.endpoint())));
            if (output.isJson()) {
                ObjectNode root = Json.object();
                root.set("controller", IdentifyText.controllerJson(controller.identify()));
                ArrayNode list = root.putArray("namespaces");
                for (Namespace ns : namespaces) {
                    list.add(IdentifyText.namespaceJson(ns.nsid(), ns.identify()));
                }
                Json.print(out, root);
            } else {
                IdentifyText.printController(out, controller.identify());
                for (Namespace ns : namespaces) {
                    out.println();
                    IdentifyText.printNamespace(out, ns.nsid(), ns.identify());
                }
            }
        }
        return 0;
    }
}
