package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.target.Subsystem;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * SIGHUP's reload: the file edited under a running daemon is applied by difference, each change named; a file that
 * does not load changes nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReloadTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:reload";
    static final String NEW = "nqn.2026-12.io.nvmf4j:added";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000aa";

    @TempDir
    Path dir;

    private Path image(String name) throws Exception {
        Path p = dir.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(1 << 20);
        }
        return p;
    }

    @Test
    void anEditedFileIsAppliedByDifferenceAndABadOneChangesNothing() throws Exception {
        Path a = image("a.img");
        Path b = image("b.img");
        int port = TestDaemons.freePort();
        TargetConfig start = QuickConfig.builder().nqn(NQN).file(a).listen("127.0.0.1:" + port)
                .provider(Provider.SOFTIWARP).pollGroups(1).build().config();
        Path file = dir.resolve("config.json");
        Files.writeString(file, start.toJson());
        ServeCli serve = new ServeCli();
        new CommandLine(serve).parseArgs("--config", file.toString(), "--no-rpc");
        TargetDaemon daemon = TargetDaemon.start(serve.load(), false);
        try {
            Subsystem s = daemon.live().subsystem(NQN);
            // the operator edits the file as nvmetcli would save it: a second namespace, a host, a new subsystem
            TargetConfig wanted = start;
            var sc = wanted.subsystems().getFirst();
            var ns2 = new io.nvmf4j.config.NamespaceConfig(2, true,
                    new io.nvmf4j.config.DeviceConfig.FileDevice(b), 512, null, null, 1);
            List<io.nvmf4j.config.NamespaceConfig> nss = new java.util.ArrayList<>(sc.namespaces());
            nss.add(ns2);
            var attr = io.nvmf4j.config.SubsystemAttributes.defaults(false);
            var sc2 = new io.nvmf4j.config.SubsystemConfig(NQN, attr, List.of(HOST), nss);
            var added = new io.nvmf4j.config.SubsystemConfig(NEW,
                    io.nvmf4j.config.SubsystemAttributes.defaults(true), List.of(), List.of());
            var p = wanted.ports().getFirst();
            var p2 = new io.nvmf4j.config.PortConfig(p.portid(), p.addr(), p.param(), List.of(NQN, NEW),
                    p.referrals(), p.anaGroups());
            wanted = new TargetConfig(List.of(new io.nvmf4j.config.HostConfig(HOST)), List.of(p2), List.of(sc2, added), wanted.nvmf4j());
            Files.writeString(file, wanted.toJson());

            ConfigReload.Result r = serve.reload(daemon.live());
            assertTrue(r.problems().isEmpty(), r.problems().toString());
            assertEquals(5, r.changes().size(), r.changes().toString());
            assertTrue(r.changes().contains(NQN + ": allow host " + HOST), r.changes().toString());
            assertTrue(s.hasNamespace(2));
            assertEquals(java.util.Set.of(HOST), s.allowedHosts());
            assertTrue(daemon.target().ports().getFirst().subsystems().stream()
                    .anyMatch(x -> x.nqn().value().equals(NEW)));
            assertTrue(serve.reload(daemon.live()).changes().isEmpty(), "the same file again changes nothing");

            TargetConfig before = daemon.live().config();
            Files.writeString(file, wanted.toJson().replace(b.toString(), dir.resolve("gone.img").toString()));
            assertNull(serve.reload(daemon.live()), "a file naming a missing device is refused whole");
            Files.writeString(file, "{ \"subsystems\": [ ");
            assertNull(serve.reload(daemon.live()), "a file that is not JSON is refused");
            assertEquals(before, daemon.live().config());
            assertTrue(s.hasNamespace(2));
        } finally {
            daemon.close();
        }
    }

    @Test
    void aReloadChangesAnaStatesAndReferralsInPlace() throws Exception {
        Path a = image("a.img");
        int port = TestDaemons.freePort();
        TargetConfig start = QuickConfig.builder().nqn(NQN).file(a).listen("127.0.0.1:" + port)
                .provider(Provider.SOFTIWARP).pollGroups(1).build().config();
        Path file = dir.resolve("config.json");
        Files.writeString(file, start.toJson());
        ServeCli serve = new ServeCli();
        new CommandLine(serve).parseArgs("--config", file.toString(), "--no-rpc");
        TargetDaemon daemon = TargetDaemon.start(serve.load(), false);
        try {
            io.nvmf4j.target.Port running = daemon.target().ports().getFirst();
            var p = start.ports().getFirst();
            var edited = new io.nvmf4j.config.PortConfig(p.portid(), p.addr(), p.param(), p.subsystems(),
                    List.of(new io.nvmf4j.config.Referral("other", java.util.Map.of("trtype", "rdma", "adrfam",
                            "ipv4", "traddr", "192.0.2.5", "trsvcid", "4420", "portid", "4"), true)),
                    List.of(new io.nvmf4j.config.AnaGroup(1, "inaccessible")));
            Files.writeString(file, new TargetConfig(start.hosts(), List.of(edited), start.subsystems(),
                    start.nvmf4j()).toJson());
            ConfigReload.Result r = serve.reload(daemon.live());
            assertTrue(r.problems().isEmpty(), r.problems().toString());
            assertEquals(2, r.changes().size(), r.changes().toString());
            assertEquals(io.nvmf4j.protocol.log.AnaState.INACCESSIBLE, running.anaState(1));
            assertEquals(List.of(new io.nvmf4j.target.Port.Referral(1, 1, "192.0.2.5", "4420", 4, 0)),
                    running.referrals());
            assertTrue(daemon.target().ports().getFirst() == running, "the same port: nobody was disconnected");
        } finally {
            daemon.close();
        }
    }
}
