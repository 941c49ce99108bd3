package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The management socket as hostile input: every malformed request gets its JSON-RPC error and the next one runs. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RpcServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    Path socket;
    RpcServer server;

    @BeforeEach
    void start() throws Exception {
        socket = dir.resolve("run/nvmf4j.sock");
        server = RpcServer.start(socket, (method, params) -> switch (method) {
            case "echo" -> params;
            case "boom" -> throw new IllegalStateException("handler bug");
            // what Arena.allocate threw for ctl add-namespace --size 10T before sizes were checked
            case "oom" -> throw new OutOfMemoryError("Unable to allocate 10995116281840 bytes");
            case "refuse" -> throw RpcError.refused("no, because");
            default -> throw new RpcError(RpcError.METHOD_NOT_FOUND, "no method \"" + method + "\"");
        });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private JsonNode send(String text) throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer out = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                ch.write(out);
            }
            ByteArrayOutputStream in = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(4096);
            while (ch.read(buf.clear()) > 0) {
                in.write(buf.array(), 0, buf.position());
                if (in.toString(StandardCharsets.UTF_8).endsWith("\n")) {
                    break;
                }
            }
            return JSON.readTree(in.toByteArray());
        }
    }

    private void assertError(JsonNode response, int code, String part) {
        assertEquals(code, response.path("error").path("code").asInt(), response.toString());
        assertTrue(response.path("error").path("message").asText().contains(part), response.toString());
    }

    private void assertStillServes() throws Exception {
        JsonNode r = send("{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"a\":1},\"id\":7}\n");
        assertEquals(1, r.path("result").path("a").asInt(), r.toString());
        assertEquals(7, r.path("id").asInt());
    }

    @Test
    void theSocketIsOnlyForTheDaemonsUser() throws Exception {
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())));
    }

    @Test
    void notJsonIsAParseErrorAndTheDaemonGoesOn() throws Exception {
        assertError(send("{\"jsonrpc\":\"2.0\",\"method\":\n"), RpcError.PARSE_ERROR, "parse error");
        assertStillServes();
    }

    @Test
    void aRequestWithoutVersionOrMethodIsAnInvalidRequest() throws Exception {
        assertError(send("{\"method\":\"echo\",\"id\":1}\n"), RpcError.INVALID_REQUEST, "2.0");
        assertError(send("{\"jsonrpc\":\"2.0\",\"method\":5,\"id\":1}\n"), RpcError.INVALID_REQUEST, "method");
        assertError(send("[]\n"), RpcError.INVALID_REQUEST, "empty batch");
        assertError(send("42\n"), RpcError.INVALID_REQUEST, "object");
        assertStillServes();
    }

    @Test
    void anUnknownMethodIsMethodNotFound() throws Exception {
        assertError(send("{\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"id\":1}\n"), RpcError.METHOD_NOT_FOUND, "nope");
    }

    @Test
    void aHandlerExceptionIsAnInternalErrorNotADeadDaemon() throws Exception {
        assertError(send("{\"jsonrpc\":\"2.0\",\"method\":\"boom\",\"id\":1}\n"), RpcError.INTERNAL_ERROR, "handler bug");
        assertError(send("{\"jsonrpc\":\"2.0\",\"method\":\"refuse\",\"id\":1}\n"), RpcError.REFUSED, "because");
        assertStillServes();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void aRequestTheMachineCannotAffordIsAnErrorAndTheNextRequestIsServed() throws Exception {
        assertError(send("{\"jsonrpc\":\"2.0\",\"method\":\"oom\",\"id\":1}\n"), RpcError.INTERNAL_ERROR,
                "Unable to allocate");
        assertStillServes();
        assertError(send("{\"jsonrpc\":\"2.0\",\"method\":\"oom\",\"id\":2}\n"), RpcError.INTERNAL_ERROR,
                "OutOfMemoryError");
        assertStillServes();
    }

    @Test
    void aRequestOverOneMebibyteIsRefusedAndTheConnectionClosed() throws Exception {
        String huge = "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"a\":\"" + "x".repeat(RpcServer.MAX_REQUEST_BYTES)
                + "\"},\"id\":1}\n";
        assertError(send(huge), RpcError.INVALID_REQUEST, "longer than");
        assertStillServes();
    }

    @Test
    void deeplyNestedJsonIsAnErrorNotAStackOverflow() throws Exception {
        String deep = "[".repeat(200_000) + "]".repeat(200_000) + "\n";
        assertTrue(send(deep).path("error").path("code").asInt() < 0);
        String deepParams = "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"id\":1,\"params\":{\"a\":"
                + "[".repeat(200_000) + "]".repeat(200_000) + "}}\n";
        assertTrue(send(deepParams).path("error").path("code").asInt() < 0);
        assertStillServes();
    }

    @Test
    void aClientThatSendsHalfALineHoldsNobodyElseUp() throws Exception {
        try (SocketChannel idle = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            idle.write(ByteBuffer.wrap("{\"jsonrpc\":".getBytes(StandardCharsets.UTF_8)));
            assertStillServes();
        }
    }

    @Test
    void aClientThatSendsButNeverReadsIsNotReadFurtherAndOthersAreServed() throws Exception {
        String big = "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"a\":\"" + "x".repeat(900_000)
                + "\"},\"id\":1}\n";
        try (SocketChannel greedy = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            greedy.configureBlocking(false);
            ByteBuffer out = ByteBuffer.wrap(big.repeat(20).getBytes(StandardCharsets.UTF_8));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (out.hasRemaining() && System.nanoTime() < end) {
                if (greedy.write(out) == 0) {
                    Thread.sleep(10);
                }
            }
            assertTrue(out.hasRemaining(), "the server stopped reading a client that does not read its answers");
            assertStillServes();
        }
    }

    @Test
    void aBatchGetsOneResponsePerRequestWithAnId() throws Exception {
        JsonNode r = send("[{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"a\":1},\"id\":1},"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"a\":2}},"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"id\":3}]\n");
        assertEquals(2, r.size(), r.toString());
        assertEquals(1, r.get(0).path("result").path("a").asInt());
        assertEquals(RpcError.METHOD_NOT_FOUND, r.get(1).path("error").path("code").asInt());
    }

    @Test
    void aSecondDaemonOnTheSameSocketIsRefusedAStaleSocketIsReplaced() throws Exception {
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> RpcServer.start(socket, (m, p) -> Map.of()));
        assertTrue(e.getMessage().contains("another daemon"), e.getMessage());
        server.close();
        Files.createFile(socket); // left behind by a daemon killed with SIGKILL
        server = RpcServer.start(socket, (m, p) -> p);
        JsonNode r = send("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"a\":3},\"id\":1}\n");
        assertEquals(3, r.path("result").path("a").asInt());
    }
}
