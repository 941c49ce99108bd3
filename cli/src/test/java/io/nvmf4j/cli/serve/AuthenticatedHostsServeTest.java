package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.config.ConfigLoader;
import io.nvmf4j.config.DhchapConfig;
import io.nvmf4j.config.HostConfig;
import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfAuthenticationException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.target.Subsystem;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code serve --config} with an nvmetcli {@code hosts[].dhchap} host: the subsystem is never served to that host
 * without authentication; {@code nvmf_subsystem_add_host} with SPDK's {@code dhchap_key}/{@code dhchap_ctrlr_key};
 * {@code save_config} writes the keys back in nvmetcli's schema; SIGHUP applies changed keys.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AuthenticatedHostsServeTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:auth-serve";
    static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    private final HostIdentity host = HostIdentity.generate();

    private Path configFile(int port, DhchapConfig dhchap) throws Exception {
        TargetConfig quick = QuickConfig.builder().nqn(NQN).ram("1M").listen("127.0.0.1:" + port)
                .allowHost(host.hostNqn().value()).provider(Provider.SOFTIWARP).pollGroups(1).build().config();
        TargetConfig c = new TargetConfig(List.of(new HostConfig(host.hostNqn().value(), dhchap)), quick.ports(),
                quick.subsystems(), quick.nvmf4j());
        return Files.writeString(dir.resolve("config.json"), c.toJson());
    }

    private static ServeCli serve(Path file) {
        ServeCli serve = new ServeCli();
        new CommandLine(serve).parseArgs("--config", file.toString(), "--no-rpc");
        return serve;
    }

    private ConnectOptions.Builder options(int port) {
        return ConnectOptions.builder(new InetSocketAddress("127.0.0.1", port), Nqn.parse(NQN)).host(host)
                .provider("softiwarp").ioQueues(1).queueSize(16).commandTimeout(Duration.ofSeconds(15))
                .bufferSize(16384).buffersPerQueue(8).ctrlLossTimeout(Duration.ZERO);
    }

    private static void writeAndReadBack(NvmeController c) throws Exception {
        byte[] data = new byte[4096];
        new Random(7).nextBytes(data);
        var ns = c.namespace(1).orElseThrow();
        ns.write(0, 8, MemorySegment.ofArray(data));
        byte[] back = new byte[4096];
        ns.read(0, 8, MemorySegment.ofArray(back));
        assertArrayEquals(data, back);
    }

    @Test
    void aConfiguredKeyIsRequiredAndABidirectionalConnectWithItWorks() throws Exception {
        DhchapSecret key = DhchapSecret.generate(2, 48, RANDOM);
        DhchapSecret ctrlKey = DhchapSecret.generate(0, 32, RANDOM);
        int port = TestDaemons.freePort();
        Path file = configFile(port, DhchapConfig.of(key, ctrlKey));
        TargetDaemon daemon = TargetDaemon.start(serve(file).load(), false);
        try {
            Subsystem s = daemon.live().subsystem(NQN);
            assertEquals(DhchapKeys.of(key, ctrlKey).key(), s.hostKeys(host.hostNqn().value()).orElseThrow().key());

            try (NvmeController c = NvmeController.connect(options(port).dhchapSecret(key).dhchapCtrlSecret(ctrlKey)
                    .build())) {
                writeAndReadBack(c);
            }
            assertThrows(NvmfAuthenticationException.class, () -> NvmeController.connect(options(port).build()),
                    "no secret: refused");
            assertThrows(NvmfAuthenticationException.class, () -> NvmeController.connect(options(port)
                    .dhchapSecret(DhchapSecret.generate(2, 48, RANDOM)).build()), "wrong secret: refused");
        } finally {
            daemon.close();
        }
    }

    @Test
    void addHostWithSpdksKeyNamesSaveAndSighupReload() throws Exception {
        int port = TestDaemons.freePort();
        Path file = configFile(port, null);
        ServeCli serve = serve(file);
        TargetDaemon daemon = TargetDaemon.start(serve.load(), false);
        try {
            Subsystem s = daemon.live().subsystem(NQN);
            String hostNqn = host.hostNqn().value();
            assertTrue(s.hostKeys(hostNqn).isEmpty());

            DhchapSecret key = DhchapSecret.generate(1, 32, RANDOM);
            Path keyFile = Files.writeString(dir.resolve("ctrl.key"), DhchapSecret.generate(3, 64, RANDOM).format());
            Files.setPosixFilePermissions(keyFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
            RpcMethods rpc = new RpcMethods(daemon.live(), file);
            ObjectMapper json = new ObjectMapper();
            ObjectNode p = json.createObjectNode().put("nqn", NQN).put("host", hostNqn)
                    .put("dhchap_key", key.format()).put("dhchap_ctrlr_key", keyFile.toString());
            RpcError exposed = assertThrows(RpcError.class, () -> rpc.call("nvmf_subsystem_add_host", p));
            assertEquals("dhchap_ctrlr_key: key file " + keyFile + " is accessible to group or others; chmod 600 it",
                    exposed.getMessage());
            Files.setPosixFilePermissions(keyFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            rpc.call("nvmf_subsystem_add_host", p);
            DhchapKeys keys = s.hostKeys(hostNqn).orElseThrow();
            assertEquals(key, keys.key());
            assertTrue(keys.bidirectional());

            // save_config: nvmetcli's schema, and the file loads back with the same keys
            rpc.call("save_config", json.createObjectNode());
            TargetConfig saved = ConfigLoader.standard().load(file).config();
            assertEquals(key, saved.hosts().getFirst().dhchap().key());
            assertTrue(Files.readString(file).contains("\"key\": \"" + key.format() + "\""));

            // SIGHUP after the operator changed the key in the file: the new key is enforced
            DhchapSecret next = DhchapSecret.generate(3, 64, RANDOM);
            Files.writeString(file, Files.readString(file).replace(key.format(), next.format()));
            ConfigReload.Result r = serve.reload(daemon.live());
            assertTrue(r.changes().contains("host " + hostNqn + ": DH-HMAC-CHAP settings"), r.changes().toString());
            assertTrue(r.problems().isEmpty(), r.problems().toString());
            assertEquals(next, s.hostKeys(hostNqn).orElseThrow().key());
            assertTrue(r.changes().stream().noneMatch(c -> c.contains("DHHC-1")), "never log a key");
        } finally {
            daemon.close();
        }
    }
}
