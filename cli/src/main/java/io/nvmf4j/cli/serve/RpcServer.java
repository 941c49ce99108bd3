package io.nvmf4j.cli.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;

/**
 * JSON-RPC 2.0 on a Unix domain socket (what SPDK's {@code rpc.py} talks to, {@code /var/tmp/spdk.sock}): one request
 * per line, one response line per request that has an id. One thread serves every connection with a selector, so a
 * client that sends nothing or half a line holds no thread and no lock; methods run on that thread one at a time.
 *
 * <p>The socket is input from whoever can open it (mode 0600: the daemon's user), still treated as hostile: a line
 * longer than {@link #MAX_REQUEST_BYTES} is refused with -32600 and the connection closed, a connection idle for
 * {@link #IDLE_TIMEOUT_MILLIS} is closed, at most {@link #MAX_CONNECTIONS} are open, and nothing a request holds can
 * throw out of the loop: a bad request gets an error response (-32700, -32600, -32601, -32602) and the next one runs.
 */
public final class RpcServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RpcServer.class.getName());

    public static final Path DEFAULT_SOCKET = Path.of("/run/nvmf4j/nvmf4j.sock");
    public static final int MAX_REQUEST_BYTES = 1 << 20;
    public static final long IDLE_TIMEOUT_MILLIS = 10_000;
    public static final int MAX_CONNECTIONS = 16;
    /** Responses a client has not read yet, beyond which its requests are not read (it must read first). */
    static final int MAX_PENDING_RESPONSE_BYTES = 4 << 20;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What answers the methods (a {@link RpcMethods} in the daemon). */
    public interface Handler {
        Object call(String method, JsonNode params) throws RpcError;
    }

    private final Path path;
    private final Handler handler;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread thread;
    private volatile boolean closed;

    private RpcServer(Path path, Handler handler, ServerSocketChannel server, Selector selector) {
        this.path = path;
        this.handler = handler;
        this.server = server;
        this.selector = selector;
        this.thread = Thread.ofPlatform().name("nvmf4j-rpc").daemon().unstarted(this::run);
    }

    /**
     * Binds the socket (creating its directory 0700 if absent; replacing a stale socket file no daemon answers on)
     * and makes it 0600 before serving.
     */
    public static RpcServer start(Path path, Handler handler) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        if (Files.exists(path)) {
            try (SocketChannel _ = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                throw new IOException("another daemon answers on " + path + " (--rpc-socket PATH for another one)");
            } catch (IOException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("another daemon")) {
                    throw e;
                }
                Files.delete(path); // stale: left by a daemon that did not stop cleanly
            }
        }
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(path), 8);
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            server.configureBlocking(false);
            Selector selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
            RpcServer rpc = new RpcServer(path, handler, server, selector);
            rpc.thread.start();
            LOG.log(Level.INFO, "management socket {0}", path);
            return rpc;
        } catch (IOException | RuntimeException e) {
            server.close();
            Files.deleteIfExists(path);
            throw e;
        }
    }

    public Path path() {
        return path;
    }

    /** One client connection: the bytes of the line being read and the responses not yet written. */
    private static final class Connection {
        byte[] in = new byte[4096];
        int length;
        ByteBuffer out = ByteBuffer.allocate(0);
        long lastActivity = System.currentTimeMillis();
        boolean closeAfterWrite;
    }

    private void run() {
        try {
            while (!closed) {
                selector.select(1000);
                for (SelectionKey key : selector.selectedKeys()) {
                    try {
                        if (key.isAcceptable()) {
                            accept();
                        } else {
                            serve(key);
                        }
                    } catch (IOException | RuntimeException | OutOfMemoryError | StackOverflowError e) {
                        // one client's trouble ends that client only (OutOfMemoryError: a response too large to
                        // buffer, say; the loop goes on once that client's buffers are dropped)
                        LOG.log(Level.DEBUG, "management connection closed: {0}", e.toString());
                        closeKey(key);
                    }
                }
                selector.selectedKeys().clear();
                expireIdle();
            }
        } catch (IOException | ClosedSelectorException e) {
            if (!closed) {
                LOG.log(Level.ERROR, "management socket stopped: {0}", e.toString());
            }
        }
    }

    private void accept() throws IOException {
        SocketChannel ch = server.accept();
        if (ch == null) {
            return;
        }
        if (selector.keys().size() > MAX_CONNECTIONS) {
            LOG.log(Level.WARNING, "management socket: more than {0} connections; refusing one", MAX_CONNECTIONS);
            ch.close();
            return;
        }
        ch.configureBlocking(false);
        ch.register(selector, SelectionKey.OP_READ, new Connection());
    }

    private void serve(SelectionKey key) throws IOException {
        SocketChannel ch = (SocketChannel) key.channel();
        Connection c = (Connection) key.attachment();
        c.lastActivity = System.currentTimeMillis();
        if (key.isValid() && key.isReadable()) {
            if (c.length == c.in.length) {
                c.in = Arrays.copyOf(c.in, Math.min(c.in.length * 2, MAX_REQUEST_BYTES + 1));
            }
            int n = ch.read(ByteBuffer.wrap(c.in, c.length, c.in.length - c.length));
            if (n > 0) {
                c.length += n;
                handleLines(c);
            } else if (n < 0) {
                if (c.length > 0 && !c.closeAfterWrite) {
                    respond(c, handleRequest(Arrays.copyOf(c.in, c.length))); // last request without a newline
                    c.length = 0;
                }
                c.closeAfterWrite = true;
            }
        }
        if ((key.isValid() && key.isWritable()) || c.out.hasRemaining()) {
            ch.write(c.out);
        }
        if (c.out.hasRemaining()) {
            // a client that sends without reading gets no more reading until it reads: bounded memory per client
            boolean readMore = !c.closeAfterWrite && c.out.remaining() < MAX_PENDING_RESPONSE_BYTES;
            key.interestOps(SelectionKey.OP_WRITE | (readMore ? SelectionKey.OP_READ : 0));
        } else if (c.closeAfterWrite) {
            closeKey(key);
        } else {
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    private void handleLines(Connection c) {
        int start = 0;
        for (int i = 0; i < c.length && !c.closeAfterWrite; i++) {
            if (c.in[i] == '\n') {
                if (i > start) {
                    respond(c, handleRequest(Arrays.copyOfRange(c.in, start, i)));
                }
                start = i + 1;
            }
        }
        System.arraycopy(c.in, start, c.in, 0, c.length - start);
        c.length -= start;
        if (c.length > MAX_REQUEST_BYTES) {
            respond(c, error(null, RpcError.INVALID_REQUEST, "request longer than " + MAX_REQUEST_BYTES
                    + " bytes; closing"));
            c.length = 0;
            c.closeAfterWrite = true;
            LOG.log(Level.WARNING, "management socket: a request over {0} bytes; connection closed",
                    MAX_REQUEST_BYTES);
        }
    }

    private static void respond(Connection c, JsonNode response) {
        if (response == null) {
            return; // a notification: no response (JSON-RPC 2.0, 4.1)
        }
        byte[] bytes;
        try {
            bytes = (JSON.writeValueAsString(response) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            bytes = (error(response.get("id"), RpcError.INTERNAL_ERROR, "result not serialisable") + "\n")
                    .getBytes(StandardCharsets.UTF_8);
        }
        ByteBuffer out = ByteBuffer.allocate(c.out.remaining() + bytes.length);
        out.put(c.out).put(bytes).flip();
        c.out = out;
    }

    /** One line: a request, or a batch of them (JSON-RPC 2.0, 6); null when nothing is to be answered. */
    JsonNode handleRequest(byte[] line) {
        JsonNode tree;
        try {
            tree = JSON.readTree(line);
        } catch (IOException | RuntimeException e) {
            return error(null, RpcError.PARSE_ERROR, "parse error: not JSON (" + firstLine(e.getMessage()) + ")");
        }
        if (tree == null || tree.isMissingNode()) {
            return error(null, RpcError.INVALID_REQUEST, "empty request");
        }
        if (tree.isArray()) {
            if (tree.isEmpty()) {
                return error(null, RpcError.INVALID_REQUEST, "empty batch");
            }
            ArrayNode responses = JsonNodeFactory.instance.arrayNode();
            for (JsonNode one : tree) {
                JsonNode r = handleOne(one);
                if (r != null) {
                    responses.add(r);
                }
            }
            return responses.isEmpty() ? null : responses;
        }
        return handleOne(tree);
    }

    private JsonNode handleOne(JsonNode request) {
        if (!request.isObject()) {
            return error(null, RpcError.INVALID_REQUEST, "a request is a JSON object");
        }
        JsonNode id = request.get("id");
        if (id != null && !(id.isTextual() || id.isIntegralNumber() || id.isNull())) {
            return error(null, RpcError.INVALID_REQUEST, "id must be a string, an integer or null");
        }
        JsonNode version = request.get("jsonrpc");
        JsonNode method = request.get("method");
        if (version == null || !"2.0".equals(version.asText()) || !version.isTextual()) {
            return error(id, RpcError.INVALID_REQUEST, "\"jsonrpc\": \"2.0\" is required");
        }
        if (method == null || !method.isTextual()) {
            return error(id, RpcError.INVALID_REQUEST, "\"method\" must be a string");
        }
        JsonNode result;
        try {
            result = JSON.valueToTree(handler.call(method.asText(), request.get("params")));
        } catch (RpcError e) {
            LOG.log(Level.INFO, "rpc {0}: {1}", method.asText(), e.getMessage());
            return id == null ? null : error(id, e.code(), e.getMessage());
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            // A request the daemon cannot afford (an allocation the heap or the machine refuses, a recursion too
            // deep) fails alone: the thread that serves every later request must not die with it. What the
            // request allocated is garbage once it is answered.
            LOG.log(Level.WARNING, "rpc {0} failed: {1}", method.asText(), e.toString());
            return id == null ? null : error(id, RpcError.INTERNAL_ERROR, "internal error: " + e);
        }
        if (id == null) {
            return null;
        }
        ObjectNode response = JsonNodeFactory.instance.objectNode();
        response.put("jsonrpc", "2.0");
        response.set("result", result);
        response.set("id", id);
        return response;
    }

    static ObjectNode error(JsonNode id, int code, String message) {
        ObjectNode response = JsonNodeFactory.instance.objectNode();
        response.put("jsonrpc", "2.0");
        ObjectNode error = response.putObject("error");
        error.put("code", code);
        error.put("message", message);
        response.set("id", id == null ? JsonNodeFactory.instance.nullNode() : id);
        return response;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private void expireIdle() {
        long now = System.currentTimeMillis();
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Connection c && now - c.lastActivity > IDLE_TIMEOUT_MILLIS) {
                LOG.log(Level.DEBUG, "management connection idle for {0} ms; closed", IDLE_TIMEOUT_MILLIS);
                closeKey(key);
            }
        }
    }

    private static void closeKey(SelectionKey key) {
        key.cancel();
        try {
            key.channel().close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey key : selector.keys()) {
            closeKey(key);
        }
        try {
            selector.close();
            server.close();
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing the management socket: {0}", e.toString());
        }
    }
}
