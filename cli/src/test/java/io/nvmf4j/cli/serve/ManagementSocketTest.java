package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.nvmf4j.cli.ctl.RpcClient;
import io.nvmf4j.config.ConfigLoader;
import io.nvmf4j.config.LoadedConfig;
import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.config.TargetConfig;
import java.io.RandomAccessFile;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The management socket of a running daemon (softiwarp on 127.0.0.1): changes through the RPC methods, then
 * {@code save_config}, and the saved file loaded as {@code serve --config} runs the same subsystems, namespaces,
 * hosts and ports.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ManagementSocketTest {

    static final String NQN = "nqn.2026-12.io.nvmf4j:mgmt";
    static final String NQN2 = "nqn.2026-12.io.nvmf4j:second";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001";

    @TempDir
    Path dir;

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static TargetDaemon quickDaemon(int port) throws Exception {
        return TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").listen("127.0.0.1:" + port)
                .provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
    }

    private JsonNode call(Path socket, String method, Map<String, String> params) throws Exception {
        return RpcClient.call(socket, method, params);
    }

    @Test
    void changesThroughTheSocketAreSavedInNvmetcliSchemaAndTheSavedFileRunsTheSame() throws Exception {
        Path img = dir.resolve("b.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(2 << 20);
        }
        Path saved = dir.resolve("saved.json");
        Path socket = dir.resolve("nvmf4j.sock");
        int port2 = freePort();
        TargetConfig running;
        String listed;
        TargetDaemon daemon = quickDaemon(freePort());
        try (RpcServer _ = RpcServer.start(socket, new RpcMethods(daemon.live(), saved)::call)) {
            call(socket, "nvmf_create_subsystem", Map.of("nqn", NQN2, "serial_number", "SER2", "model_number", "M2"));
            assertEquals(1, call(socket, "nvmf_subsystem_add_ns", Map.of("nqn", NQN2, "path", img.toString()))
                    .asLong());
            assertEquals(2, call(socket, "nvmf_subsystem_add_ns", Map.of("nqn", NQN2, "size", "1M", "block_size",
                    "4096")).asLong());
            assertEquals(2, call(socket, "nvmf_subsystem_add_ns", Map.of("nqn", NQN, "path", img.toString()))
                    .asLong());
            call(socket, "nvmf_subsystem_add_host", Map.of("nqn", NQN2, "host", HOST));
            // as SPDK's rpc.py: the listener by address; the port is made for it
            int portid = call(socket, "nvmf_subsystem_add_listener", Map.of("nqn", NQN2, "traddr", "127.0.0.1",
                    "trsvcid", Integer.toString(port2))).path("portid").asInt();
            assertEquals(portid, call(socket, "nvmf_subsystem_add_listener", Map.of("nqn", NQN, "traddr",
                    "127.0.0.1", "trsvcid", Integer.toString(port2))).path("portid").asInt(), "the same port again");
            call(socket, "nvmf_subsystem_remove_listener", Map.of("nqn", NQN, "portid", Integer.toString(portid)));
            assertEquals(Map.of("size", 4L << 20).get("size"), call(socket, "nvmf4j_subsystem_resize_ns",
                    Map.of("nqn", NQN2, "nsid", "1", "size", "4M")).path("size").asLong());
            call(socket, "nvmf_subsystem_remove_ns", Map.of("nqn", NQN, "nsid", "2"));
            assertEquals(saved.toString(), call(socket, "save_config", Map.of()).path("path").asText());
            running = daemon.live().configWithIdentity();
            listed = call(socket, "nvmf_get_subsystems", Map.of()).toString();
        } finally {
            daemon.close();
        }
        String json = Files.readString(saved);
        assertTrue(json.contains("\"serial\": \"" + io.nvmf4j.target.Subsystem.derivedSerial(
                io.nvmf4j.target.SubsystemNqn.of(NQN)) + "\""), "the derived serial is saved, so it survives: " + json);
        for (String field : new String[] {"\"allowed_hosts\"", "\"attr\"", "\"allow_any_host\"", "\"device\"",
            "\"path\"", "\"nsid\"", "\"enable\"", "\"portid\"", "\"addr\"", "\"traddr\"", "\"trsvcid\"", "\"trtype\"",
            "\"subsystems\"", "\"hosts\"", "\"serial\": \"SER2\""}) {
            assertTrue(json.contains(field), field + " in\n" + json);
        }
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temp file left");
        }

        LoadedConfig again = ConfigLoader.standard().load(saved);
        assertEquals(running.subsystems(), again.config().subsystems());
        assertEquals(running.ports(), again.config().ports());
        assertEquals(running.hosts(), again.config().hosts());

        TargetDaemon second = TargetDaemon.start(again, false);
        Path socket2 = dir.resolve("second.sock");
        try (RpcServer _ = RpcServer.start(socket2, new RpcMethods(second.live(), saved)::call)) {
            assertEquals(listed.replaceAll("\"controllers\":\\d+", ""),
                    call(socket2, "nvmf_get_subsystems", Map.of()).toString().replaceAll("\"controllers\":\\d+", ""));
        } finally {
            second.close();
        }
    }

    @Test
    void badParametersAreInvalidParamsAndChangeNothing() throws Exception {
        Path socket = dir.resolve("nvmf4j.sock");
        TargetDaemon daemon = quickDaemon(freePort());
        try (RpcServer _ = RpcServer.start(socket, new RpcMethods(daemon.live(), null)::call)) {
            TargetConfig before = daemon.live().config();
            assertRpcError(socket, "nvmf_subsystem_add_ns", Map.of("nqn", NQN, "path", dir.resolve("absent").toString()),
                    -32602, "absent");
            assertRpcError(socket, "nvmf_subsystem_add_ns", Map.of("nqn", NQN, "size", "1M", "nsdi", "3"), -32602,
                    "unknown parameter \"nsdi\"");
            assertRpcError(socket, "nvmf_subsystem_remove_ns", Map.of("nqn", NQN, "nsid", "x"), -32602, "number");
            assertRpcError(socket, "nvmf_subsystem_remove_ns", Map.of("nqn", "nqn.2026-12.io.nvmf4j:none", "nsid", "1"),
                    -32602, "no subsystem");
            assertRpcError(socket, "nvmf_subsystem_add_ns", Map.of("nqn", NQN, "size", "1M", "nsid", "1"), -32000,
                    "already has namespace 1");
            assertRpcError(socket, "nvmf_subsystem_resize_ns", Map.of(), -32601, "rpc_get_methods");
            assertRpcError(socket, "save_config", Map.of(), -32602, "--config");
            // nvmet refuses hosts on an allow-any-host subsystem; a saved file with both would not load again
            assertRpcError(socket, "nvmf_subsystem_add_host", Map.of("nqn", NQN, "host", HOST), -32000,
                    "allow_any_host");
            assertEquals(before, daemon.live().config());
        } finally {
            daemon.close();
        }
    }

    @Test
    void concurrentAddsAreSerializedEachGetsItsOwnNsidAndTheSavedConfigMatchesWhatRuns() throws Exception {
        TargetDaemon daemon = quickDaemon(freePort());
        try {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            java.util.List<java.util.concurrent.Future<Long>> added = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) {
                added.add(pool.submit(() -> daemon.live().addNamespace(NQN, 0, null, 64 << 10, 512, null)));
            }
            java.util.Set<Long> nsids = new java.util.TreeSet<>();
            for (var f : added) {
                nsids.add(f.get(30, TimeUnit.SECONDS));
            }
            pool.shutdown();
            assertEquals(40, nsids.size(), "every concurrent add got its own NSID: " + nsids);
            var sub = daemon.live().config().subsystem(NQN).orElseThrow();
            assertEquals(41, sub.namespaces().size());
            assertEquals(41, daemon.live().subsystem(NQN).namespaces().size());
        } finally {
            daemon.close();
        }
    }

    private static void assertRpcError(Path socket, String method, Map<String, String> params, int code, String part)
            throws Exception {
        try {
            RpcClient.call(socket, method, params);
            org.junit.jupiter.api.Assertions.fail(method + " " + params + " should fail");
        } catch (RpcClient.RpcFailure e) {
            assertEquals(code, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains(part), e.getMessage());
        }
    }
}
