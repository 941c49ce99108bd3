package io.nvmf4j.cli.host;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.nvmecli.JsonC;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j list-subsys}: the NVM subsystems a target's discovery log lists, in the layout of
 * {@code nvme list-subsys} (nvme-cli 2.3 {@code nvme_show_subsystem()} / {@code json_print_nvme_subsystem_list()}).
 * nvme-cli lists the kernel's connected controllers; nvmf4j keeps none between commands, so each subsystem gets
 * one path, the address it was discovered at, whose State is what a connection to it right now says ("live", or
 * why not). Names are nvmf4j's ({@code nvmf4j-subsys0}, {@code nvmf4j0}), not the kernel's.
 */
@Command(mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        name = "list-subsys", sortOptions = false,
        description = {"List the NVM subsystems of a target with a path each and its state (like nvme list-subsys; "
                + "-o json has nvme-cli 2.x's keys: HostNQN, HostID, Subsystems[].Name/NQN/Paths[]).",
            "The state is probed by connecting each subsystem at the address given with -a/-s."})
public final class ListSubsysCli implements Callable<Integer> {

    @Mixin
    ConnectFlags fabric;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        CommandLogging.configure(output.verbose);
        OutputOptions.Format format = output.textOrJson(
                "list-subsys: -o binary is not supported (nvme-cli has none either)");
        DiscoveryPage log = DiscoveryPage.read(fabric);
        HostIdentity host = fabric.hostIdentity();
        List<Object> subsystems = new ArrayList<>();
        int i = 0;
        for (DiscoveryLogEntry e : log.entries()) {
            if (e.subtype() != DiscoveryLogEntry.SUBTYPE_NVME) {
                continue;
            }
            Map<String, Object> path = JsonC.object();
            path.put("Name", "nvmf4j" + i);
            path.put("Transport", DiscoveryLogText.trtype(e.trtype()));
            path.put("Address", "traddr=" + e.traddr() + ",trsvcid=" + e.trsvcid());
            path.put("State", state(e.subnqn()));
            Map<String, Object> s = JsonC.object();
            s.put("Name", "nvmf4j-subsys" + i);
            s.put("NQN", e.subnqn());
            s.put("Paths", List.of(path));
            subsystems.add(s);
            i++;
        }
        Map<String, Object> h = JsonC.object();
        h.put("HostNQN", host.hostNqn().value());
        h.put("HostID", host.hostId().toString());
        h.put("Subsystems", subsystems);
        PrintWriter out = spec.commandLine().getOut();
        if (format == OutputOptions.Format.JSON) {
            out.print(JsonC.print(List.of(h)));
        } else {
            for (Object o : subsystems) {
                @SuppressWarnings("unchecked")
                Map<String, Object> s = (Map<String, Object>) o;
                out.printf("%s - NQN=%s%n\\%n", s.get("Name"), s.get("NQN"));
                for (Object p : (List<?>) s.get("Paths")) {
                    Map<?, ?> m = (Map<?, ?>) p;
                    out.printf(" +- %s %s %s %s%n", m.get("Name"), m.get("Transport"), m.get("Address"),
                            m.get("State"));
                }
            }
        }
        out.flush();
        return 0;
    }

    /** "live" when an admin-only connection to the subsystem at the given address succeeds, else the reason. */
    private String state(String subnqn) {
        Nqn nqn;
        try {
            nqn = Nqn.parse(subnqn);
        } catch (RuntimeException e) {
            return "invalid NQN";
        }
        ConnectOptions options = fabric.builder(nqn).ioQueues(0).build();
        try (NvmeController _ = NvmeController.connect(options)) {
            return "live";
        } catch (NvmfException e) {
            return Connections.failure(fabric, options, e).getMessage().replace("cannot connect to "
                    + fabric.endpoint() + ": ", "");
        }
    }
}
