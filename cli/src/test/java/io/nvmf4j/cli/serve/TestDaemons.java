package io.nvmf4j.cli.serve;

import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import java.net.ServerSocket;
import java.nio.file.Path;

/** A daemon on softiwarp at 127.0.0.1 with its management socket, for tests in other packages. */
public final class TestDaemons {

    public static final String NQN = "nqn.2026-12.io.nvmf4j:ctl-test";

    private TestDaemons() {
    }

    public record WithSocket(TargetDaemon daemon, RpcServer rpc, Path socket, int port) implements AutoCloseable {
        @Override
        public void close() {
            rpc.close();
            daemon.close();
        }
    }

    public static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public static WithSocket withSocket(Path dir) throws Exception {
        int port = freePort();
        TargetDaemon daemon = TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").listen("127.0.0.1:" + port)
                .provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
        Path socket = dir.resolve("nvmf4j.sock");
        try {
            return new WithSocket(daemon, RpcServer.start(socket, new RpcMethods(daemon.live(), null)::call), socket,
                    port);
        } catch (Exception e) {
            daemon.close();
            throw e;
        }
    }
}
