package io.nvmf4j.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One JSON-RPC 2.0 call to a running {@code nvmf4j serve} over its Unix domain socket, bounded in time: a daemon
 * whose management thread is stuck or gone (its socket still accepts into the backlog) is reported after the
 * timeout instead of holding the caller forever, as SPDK's {@code rpc.py -t} does.
 */
public final class RpcClient {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_RESPONSE_BYTES = 64 << 20;
    /** SPDK rpc.py's default: long enough for a save's fsyncs or a namespace draining its commands. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    /** The method that names the daemon (pid, --config), asked ahead of each call on the same connection. */
    static final String DAEMON_METHOD = "nvmf4j_get_daemon";

    /** The error member of a response. */
    public static final class RpcFailure extends Exception {
        private static final long serialVersionUID = 1L;

        private final int code;

        RpcFailure(int code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /** The daemon that answered: its process id and the --config it runs (null without one). */
    public record Daemon(long pid, String config, String version) {
        /** "daemon pid 4242 (--config /etc/nvmf4j/config.json)". */
        public String describe() {
            return "daemon pid " + pid + (config == null ? " (no --config)" : " (--config " + config + ")");
        }

        static Daemon from(JsonNode result) {
            if (result == null || !result.path("pid").canConvertToLong()) {
                return null;
            }
            JsonNode config = result.get("config");
            return new Daemon(result.path("pid").asLong(), config == null || config.isNull() ? null
                    : config.asText(), result.path("version").asText(null));
        }
    }

    /** A result and the daemon that gave it (null when the daemon could not say: one from before the method). */
    public record Answer(Daemon daemon, JsonNode result) {
    }

    private RpcClient() {
    }

    /** Sends {@code method} with {@code params} and returns the result member, waiting at most the default. */
    public static JsonNode call(Path socket, String method, Map<String, ?> params) throws IOException, RpcFailure {
        return call(socket, DEFAULT_TIMEOUT, method, params, false).result();
    }

    /**
     * Sends {@code method} with {@code params}; with {@code identify}, first asks the daemon who it is on the same
     * connection.
     *
     * @throws RpcTimeout when the daemon does not answer within {@code timeout}
     */
    public static Answer call(Path socket, Duration timeout, String method, Map<String, ?> params, boolean identify)
            throws IOException, RpcFailure {
        ObjectNode request = JSON.createObjectNode();
        request.put("jsonrpc", "2.0");
        request.put("method", method);
        if (params != null && !params.isEmpty()) {
            request.set("params", JSON.valueToTree(params));
        }
        request.put("id", 1);
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Conversation c = Conversation.open(socket, timeout, deadline)) {
            Daemon daemon = null;
            if (identify) {
                // its own round trip (microseconds on a Unix socket): the server writes its answers only after
                // the requests it read together, so a method that hangs would hold the name back with it
                c.send("{\"jsonrpc\":\"2.0\",\"method\":\"" + DAEMON_METHOD + "\",\"id\":0}\n");
                JsonNode who = c.readLine(null, method);
                daemon = Daemon.from(who.get("result")); // an error: a daemon from before the method
            }
            c.send(JSON.writeValueAsString(request) + "\n");
            JsonNode response = c.readLine(daemon, method);
            JsonNode error = response.get("error");
            if (error != null && !error.isNull()) {
                throw new RpcFailure(error.path("code").asInt(), error.path("message").asText());
            }
            return new Answer(daemon, response.get("result"));
        }
    }

    /** No answer within the timeout: the message says from whom, and since when. */
    public static final class RpcTimeout extends IOException {
        private static final long serialVersionUID = 1L;

        RpcTimeout(String message) {
            super(message);
        }
    }

    /** A non-blocking connection whose every wait ends at one deadline. */
    private static final class Conversation implements AutoCloseable {
        private final Path socket;
        private final Duration timeout;
        private final long deadline;
        private final SocketChannel ch;
        private final Selector selector;
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

        private Conversation(Path socket, Duration timeout, long deadline, SocketChannel ch, Selector selector) {
            this.socket = socket;
            this.timeout = timeout;
            this.deadline = deadline;
            this.ch = ch;
            this.selector = selector;
        }

        static Conversation open(Path socket, Duration timeout, long deadline) throws IOException {
            SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            Selector selector = null;
            try {
                ch.configureBlocking(false);
                selector = Selector.open();
                Conversation c = new Conversation(socket, timeout, deadline, ch, selector);
                c.connect();
                return c;
            } catch (IOException | RuntimeException e) {
                ch.close();
                if (selector != null) {
                    selector.close();
                }
                throw e;
            }
        }

        private void connect() throws IOException {
            boolean connected;
            try {
                connected = ch.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                String why = String.valueOf(e.getMessage());
                if (why.contains("temporarily unavailable")) {
                    // EAGAIN: the listen backlog is full, nobody accepts: the management thread is not serving
                    throw new RpcTimeout("the daemon at " + socket + " accepts no connection (its management"
                            + " socket's backlog is full: the daemon is stuck or stopping)");
                }
                throw new IOException("cannot reach the daemon at " + socket + " (" + why
                        + "); is nvmf4j serve running? --socket PATH names another", e);
            }
            if (!connected) {
                ch.register(selector, SelectionKey.OP_CONNECT);
                while (!ch.finishConnect()) {
                    await(null, "accept the connection", null);
                }
            }
        }

        void send(String lines) throws IOException {
            ByteBuffer out = ByteBuffer.wrap(lines.getBytes(StandardCharsets.UTF_8));
            ch.write(out);
            while (out.hasRemaining()) {
                ch.register(selector, SelectionKey.OP_WRITE);
                await(null, "read the request", null);
                ch.write(out);
            }
            ch.register(selector, SelectionKey.OP_READ);
        }

        /** The next response line, waiting at most until the deadline. */
        JsonNode readLine(Daemon daemon, String method) throws IOException {
            ByteBuffer buf = ByteBuffer.allocate(8192);
            while (true) {
                byte[] have = pending.toByteArray();
                for (int i = 0; i < have.length; i++) {
                    if (have[i] == '\n') {
                        pending.reset();
                        pending.write(have, i + 1, have.length - i - 1);
                        return JSON.readTree(java.util.Arrays.copyOf(have, i));
                    }
                }
                if (have.length > MAX_RESPONSE_BYTES) {
                    throw new IOException("response larger than " + MAX_RESPONSE_BYTES + " bytes");
                }
                int n = ch.read(buf.clear());
                if (n < 0) {
                    if (have.length > 0) {
                        pending.reset();
                        return JSON.readTree(have); // the last line without its newline
                    }
                    throw new IOException((daemon == null ? "the daemon at " + socket : daemon.describe() + " at "
                            + socket) + " closed the connection without answering " + method);
                }
                if (n == 0) {
                    await(daemon, "answer " + method, method);
                } else {
                    pending.write(buf.array(), 0, n);
                }
            }
        }

        /** Waits for the registered readiness, or throws the timeout naming who did not do {@code what}. */
        private void await(Daemon daemon, String what, String method) throws IOException {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                selector.selectedKeys().clear();
                if (deadline - System.nanoTime() > 0) {
                    return;
                }
            }
            String seconds = timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s"
                    : timeout.toMillis() + " ms";
            if (daemon != null) {
                throw new RpcTimeout(daemon.describe() + " at " + socket + " did not " + what + " within " + seconds
                        + " (--timeout SECONDS to wait longer; the change may still be applied: check with"
                        + " ctl list)");
            }
            throw new RpcTimeout("the daemon at " + socket + " did not " + what + " within " + seconds
                    + (method == null ? "" : " (its management thread is stuck or gone; its log says why)"));
        }

        @Override
        public void close() throws IOException {
            try {
                selector.close();
            } finally {
                ch.close();
            }
        }
    }
}
