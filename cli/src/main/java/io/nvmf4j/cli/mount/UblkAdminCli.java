package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.host.UsageProblem;
import io.nvmf4j.cli.mount.ublk.DeviceInfo;
import io.nvmf4j.cli.mount.ublk.UblkControl;
import io.nvmf4j.cli.mount.ublk.UblkException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j ublk list} and {@code nvmf4j ublk del}, after ublksrv's {@code ublk list} / {@code ublk del}: the
 * ublk devices of this machine, and the removal of one whose server is gone (a {@code mount --ublk} killed with
 * SIGKILL leaves its device behind, dead, until DEL_DEV).
 */
@Command(name = "ublk", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        subcommands = {UblkAdminCli.ListDevices.class, UblkAdminCli.Delete.class},
        description = "List ublk block devices, or remove one whose server has gone (as ublksrv's ublk list/del).")
public final class UblkAdminCli implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /** The ids of the ublk devices that exist: their char devices {@code /dev/ublkcN}, in order. */
    static List<Integer> deviceIds() throws IOException {
        List<Integer> ids = new ArrayList<>();
        try (Stream<Path> dev = Files.list(Path.of("/dev"))) {
            dev.map(p -> p.getFileName().toString()).filter(n -> n.matches("ublkc\\d+"))
                    .map(n -> Integer.parseInt(n.substring(5))).sorted().forEach(ids::add);
        }
        return ids;
    }

    static boolean serverAlive(DeviceInfo info) {
        return info.serverPid() > 0 && ProcessHandle.of(info.serverPid()).map(ProcessHandle::isAlive).orElse(false);
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "One line per ublk device: id, block device, queues and depth, state, server pid.")
    static final class ListDevices implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            try (UblkControl control = UblkControl.open()) {
                for (int id : deviceIds()) {
                    DeviceInfo info = control.deviceInfo(id);
                    String server = info.serverPid() > 0
                            ? "server pid " + info.serverPid() + (serverAlive(info) ? "" : " (gone)") : "no server";
                    out.println("dev id " + id + ": /dev/ublkb" + id + ", " + info.queues() + " queue(s) of "
                            + info.queueDepth() + ", max request " + info.maxIoBytes() + " bytes, "
                            + DeviceInfo.stateName(info.state()) + ", " + server
                            + (info.state() == DeviceInfo.STATE_QUIESCED && !serverAlive(info)
                                    ? "; its I/O waits for nvmf4j mount --ublk --recover " + id : ""));
                }
            } catch (UblkException e) {
                throw new CommandFailure("ublk list: " + e.getMessage(), e);
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "del", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Remove a ublk device (STOP_DEV, DEL_DEV) whose server process has gone; a device "
                + "still served is left alone: stop its server instead (kill PID), which removes it.",
                "  nvmf4j ublk del -n 0", "  nvmf4j ublk del -a"})
    static final class Delete implements Callable<Integer> {
        @ArgGroup(multiplicity = "1")
        Which which;

        static final class Which {
            @Option(names = {"-n", "--number"}, paramLabel = "ID", description = "The device /dev/ublkbID.")
            Integer id;

            @Option(names = {"-a", "--all"}, description = "Every device whose server has gone.")
            boolean all;
        }

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            List<Integer> ids = which.all ? deviceIds() : List.of(which.id);
            if (which.id != null && which.id < 0) {
                throw new UsageProblem("ublk del: -n takes a device id, 0 or more");
            }
            int failed = 0;
            try (UblkControl control = UblkControl.open()) {
                for (int id : ids) {
                    DeviceInfo info;
                    try {
                        info = control.deviceInfo(id);
                    } catch (UblkException e) {
                        throw new CommandFailure("ublk del: no ublk device " + id + " (" + e.getMessage() + ")", e);
                    }
                    if (serverAlive(info)) {
                        out.println("ublk del: /dev/ublkb" + id + " is served by pid " + info.serverPid()
                                + "; stop that process instead (kill " + info.serverPid() + "), which removes it");
                        failed++;
                        continue;
                    }
                    try {
                        control.stopDevice(id);
                    } catch (UblkException e) {
                        // a dead device may refuse to stop again; the delete below is what matters
                    }
                    control.deleteDevice(id);
                    out.println("ublk del: removed /dev/ublkb" + id);
                }
            } catch (UblkException e) {
                throw new CommandFailure("ublk del: " + e.getMessage(), e);
            }
            out.flush();
            return failed == 0 || which.all ? 0 : 1;
        }
    }
}
