package io.nvmf4j.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/** One JSON-RPC 2.0 call to a running {@code nvmf4j serve} over its Unix domain socket. */
public final class RpcClient {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_RESPONSE_BYTES = 64 << 20;

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

    private RpcClient() {
    }

    /** Sends {@code method} with {@code params} and returns the result member. */
    public static JsonNode call(Path socket, String method, Map<String, ?> params) throws IOException, RpcFailure {
        ObjectNode request = JSON.createObjectNode();
        request.put("jsonrpc", "2.0");
        request.put("method", method);
        if (params != null && !params.isEmpty()) {
            request.set("params", JSON.valueToTree(params));
        }
        request.put("id", 1);
        JsonNode response = exchange(socket, JSON.writeValueAsString(request));
        JsonNode error = response.get("error");
        if (error != null && !error.isNull()) {
            throw new RpcFailure(error.path("code").asInt(), error.path("message").asText());
        }
        return response.get("result");
    }

    /** Sends one line and reads the one line that answers it. */
    static JsonNode exchange(Path socket, String line) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            try {
                ch.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                throw new IOException("cannot reach the daemon at " + socket + " (" + e.getMessage()
                        + "); is nvmf4j serve running? --socket PATH names another", e);
            }
            ByteBuffer out = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                ch.write(out);
            }
            ByteArrayOutputStream in = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(8192);
            while (true) {
                buf.clear();
                int n = ch.read(buf);
                if (n < 0) {
                    break;
                }
                int newline = -1;
                for (int i = 0; i < n; i++) {
                    if (buf.get(i) == '\n') {
                        newline = i;
                        break;
                    }
                }
                in.write(buf.array(), 0, newline < 0 ? n : newline);
                if (newline >= 0) {
                    break;
                }
                if (in.size() > MAX_RESPONSE_BYTES) {
                    throw new IOException("response larger than " + MAX_RESPONSE_BYTES + " bytes");
                }
            }
            if (in.size() == 0) {
                throw new IOException("the daemon closed the connection without an answer");
            }
            return JSON.readTree(in.toByteArray());
        }
    }
}
