package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.nvmf4j.cli.ctl.RpcClient;
import io.nvmf4j.config.PortConfig;
import io.nvmf4j.protocol.log.AnaState;
import io.nvmf4j.target.Port;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second listener for a running subsystem and its ANA state flipped through the management socket with SPDK's
 * method name ({@code nvmf_subsystem_listener_set_ana_state}), the running configuration following.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AnaStateRpcTest {

    @TempDir
    Path dir;

    @Test
    void aSecondPathIsAddedAndItsAnaStateChangedAtRunTime() throws Exception {
        Path socket = dir.resolve("nvmf4j.sock");
        int port2 = ManagementSocketTest.freePort();
        TargetDaemon daemon = ManagementSocketTest.quickDaemon(ManagementSocketTest.freePort());
        try (RpcServer _ = RpcServer.start(socket, new RpcMethods(daemon.live(), dir.resolve("s.json"))::call)) {
            String nqn = ManagementSocketTest.NQN;
            int portid = RpcClient.call(socket, "nvmf_subsystem_add_listener", Map.of("nqn", nqn, "traddr",
                    "127.0.0.1", "trsvcid", Integer.toString(port2))).path("portid").asInt();
            assertEquals(2, daemon.target().ports().stream().filter(p -> p.subsystems().stream()
                    .anyMatch(s -> s.nqn().value().equals(nqn))).count(), "one subsystem, two ports");

            RpcClient.call(socket, "nvmf_subsystem_listener_set_ana_state", Map.of("nqn", nqn, "traddr", "127.0.0.1",
                    "trsvcid", Integer.toString(port2), "ana_state", "inaccessible"));
            Port p2 = daemon.target().ports().stream().filter(p -> p.portId() == portid).findFirst().orElseThrow();
            assertEquals(AnaState.INACCESSIBLE, p2.anaState(1), "every group of the subsystem (group 1 here)");
            RpcClient.call(socket, "nvmf_subsystem_listener_set_ana_state", Map.of("nqn", nqn, "portid",
                    Integer.toString(portid), "ana_state", "non_optimized", "anagrpid", "1"));
            assertEquals(AnaState.NON_OPTIMIZED, p2.anaState(1));

            JsonNode ports = RpcClient.call(socket, "nvmf4j_get_ports", Map.of());
            String listed = ports.toString();
            assertTrue(listed.contains("\"ana_state\":\"non-optimized\""), listed);
            PortConfig saved = daemon.live().config().ports().stream().filter(p -> p.portid() == portid)
                    .findFirst().orElseThrow();
            assertEquals(java.util.List.of(new io.nvmf4j.config.AnaGroup(1, "non-optimized")), saved.anaGroups(),
                    "save_config keeps the state");

            Exception bad = assertThrows(Exception.class, () -> RpcClient.call(socket,
                    "nvmf_subsystem_listener_set_ana_state", Map.of("nqn", nqn, "portid", Integer.toString(portid),
                            "ana_state", "sideways")));
            assertTrue(bad.getMessage().contains("sideways"), bad.getMessage());
        } finally {
            daemon.close();
        }
    }
}
