package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.QuickConfig;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code serve --transport tcp}: the quick form's port is served over NVMe/TCP by the TCP transport alone (no RDMA
 * device is opened), and the flags that make no sense with it are refused with a line that says why.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeOverTcpTest {

    private static final String NQN = "nqn.2026-12.io.nvmf4j:tcp-test";

    private static String run(int expectedExit, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new CommandLine(new ServeCli(new PrintStream(err, true, StandardCharsets.UTF_8))).execute(args);
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(expectedExit, exit, text);
        return text;
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aTcpPortAnswersAnIcReqAndNoRdmaTransportIsOpened() throws Exception {
        try (TargetDaemon daemon = TargetDaemon.start(QuickConfig.builder().nqn(NQN).ram("1M").transport("tcp")
                .listen("127.0.0.1:" + freePort()).pollGroups(1).build(), false)) {
            InetSocketAddress bound = daemon.listening().getFirst();
            try (SocketChannel ch = SocketChannel.open(bound)) {
                ByteBuffer out = ByteBuffer.allocate(IcReq.LENGTH);
                IcReq sent = IcReq.of(false, false);
                sent.encode(MemorySegment.ofBuffer(out));
                while (out.hasRemaining()) {
                    ch.write(out);
                }
                ByteBuffer in = ByteBuffer.allocate(IcReq.LENGTH);
                while (in.hasRemaining() && ch.read(in) >= 0) {
                    // the 128-byte ICResp
                }
                IcResp resp = IcResp.decode(MemorySegment.ofArray(in.array()), sent);
                assertEquals(0, resp.pfv());
                assertTrue(resp.maxH2cData() >= 4096, resp.toString());
            }
            assertNull(daemon.transports().rdmaTransport(), "a TCP-only daemon opened an RDMA device");
        }
    }

    @Test
    void aTransportOtherThanRdmaOrTcpIsRefusedByName() {
        String err = run(1, "--ram", "1M", "--nqn", NQN, "--transport", "fc", "--no-rpc");
        assertTrue(err.contains("--transport: must be rdma or tcp, got \"fc\""), err);
        assertTrue(!err.contains("\tat "), err);
    }

    @Test
    void aProviderMeansNothingToATcpPort() {
        String err = run(1, "--ram", "1M", "--nqn", NQN, "-t", "tcp", "--provider", "softiwarp", "--no-rpc");
        assertEquals("nvmf4j serve: --provider chooses the RDMA provider; a --transport tcp port uses none\n", err);
    }

    @Test
    void aConfigFileNamesEachPortsTransportItself() {
        String err = run(1, "--config", "/nonexistent.json", "-t", "tcp", "--no-rpc");
        assertTrue(err.contains("--transport applies to --listen; in a --config file each port names its own"), err);
    }
}
