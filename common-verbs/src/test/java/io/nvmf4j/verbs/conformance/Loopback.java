package io.nvmf4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.VerbsException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A loopback test bench on one provider: one device, a client and a server {@link Endpoint} (each its own
 * protection domain and completion queue), a listener on 127.0.0.1 (or {@code nvmf4j.conformance.address}) with an ephemeral port, and helpers that
 * connect client/server pairs. Everything it opened is closed, in reverse order, by {@link #close()}.
 */
public final class Loopback implements AutoCloseable {
    /**
     * The bound on every single wait of the suite: 10 s, times {@code nvmf4j.conformance.timeoutScale} (default 1;
     * the lab's checks 40/41 use 3: a 16 MiB transfer through rxe or siw under single-threaded TCG on a busy host
     * has taken more than 10 s).
     */
    public static final Duration TIMEOUT = Duration.ofMillis(
            Math.round(10_000 * Double.parseDouble(System.getProperty("nvmf4j.conformance.timeoutScale", "1"))));

    /** A connected pair: the client's side and the server's side of one connection. */
    public record Pair(RdmaConnection client, RdmaConnection server) {
    }

    private final ProviderUnderTest provider;
    private final Arena arena = Arena.ofShared();
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private final RdmaDevice device;
    private final Endpoint client;
    private final Endpoint server;
    private final RdmaListener listener;

    private Loopback(ProviderUnderTest provider, int cqEntries) throws VerbsException {
        this.provider = provider;
        try {
            this.device = provider.openDevice();
            opened.push(device);
            this.client = new Endpoint("client", device, arena, cqEntries);
            opened.push(client);
            this.server = new Endpoint("server", device, arena, cqEntries);
            opened.push(server);
            this.listener = device.connectionManager()
                    .listen(new InetSocketAddress(ProviderUnderTest.address(), 0), 64);
            opened.push(listener);
        } catch (VerbsException | RuntimeException e) {
            close();
            throw e;
        }
    }

    public static Loopback open(ProviderUnderTest provider) throws VerbsException {
        return new Loopback(provider, 1024);
    }

    public static Loopback open(ProviderUnderTest provider, int cqEntries) throws VerbsException {
        return new Loopback(provider, cqEntries);
    }

    public ProviderUnderTest provider() {
        return provider;
    }

    public RdmaDevice device() {
        return device;
    }

    public Arena arena() {
        return arena;
    }

    public Endpoint client() {
        return client;
    }

    public Endpoint server() {
        return server;
    }

    public RdmaListener listener() {
        return listener;
    }

    /** Connects a pair with default queue sizes and no private data. */
    public Pair connect() throws Exception {
        return connect(QueuePairAttributes.defaults(), QueuePairAttributes.defaults());
    }

    public Pair connect(QueuePairAttributes clientAttributes, QueuePairAttributes serverAttributes)
            throws Exception {
        return connect(clientAttributes, serverAttributes, new byte[0], new byte[0]);
    }

    /**
     * Connects the client to the listener while the server accepts, each with its own attributes and private
     * data; the connections are closed with the bench.
     */
    public Pair connect(QueuePairAttributes clientAttributes, QueuePairAttributes serverAttributes,
            byte[] requestPrivateData, byte[] acceptPrivateData) throws Exception {
        Future<RdmaConnection> connecting = startConnect(clientAttributes, requestPrivateData);
        ConnectRequest request = listener.accept(TIMEOUT);
        assertNotNull(request, "no connect request reached the listener within " + TIMEOUT);
        RdmaConnection serverSide = track(request.accept(new AcceptParams(server.pd(), server.cq(), server.cq(),
                serverAttributes, acceptPrivateData)));
        RdmaConnection clientSide = track(await(connecting));
        return new Pair(clientSide, serverSide);
    }

    /** Starts a client connect on another thread (connect blocks until the server answers). */
    public Future<RdmaConnection> startConnect(QueuePairAttributes attributes, byte[] privateData) {
        ConnectParams params = new ConnectParams(client.pd(), client.cq(), client.cq(), attributes, privateData);
        CompletableFuture<RdmaConnection> result = new CompletableFuture<>();
        Thread.ofVirtual().name("loopback-connect").start(() -> {
            try {
                result.complete(device.connectionManager().connect(listener.localAddress(), params, TIMEOUT));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    /** The result of a started connect, unwrapping the exception it failed with. */
    public static RdmaConnection await(Future<RdmaConnection> connecting) throws Exception {
        try {
            return connecting.get(TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("connect did not return within " + TIMEOUT + " (+5 s)", e);
        }
    }

    /** Closes {@code resource} with the bench (before the endpoints and the device). */
    public <T extends AutoCloseable> T track(T resource) {
        opened.push(resource);
        return resource;
    }

    @Override
    public void close() {
        Throwable first = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception | Error e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        arena.close();
        if (first instanceof Error error) {
            throw error;
        }
        if (first != null) {
            throw new IllegalStateException("closing the loopback bench failed", first);
        }
    }

    /** Waits until {@code connection} ends and returns why, failing after {@link #TIMEOUT}. */
    public static DisconnectEvent awaitDisconnect(RdmaConnection connection) throws InterruptedException {
        CompletableFuture<DisconnectEvent> ended = new CompletableFuture<>();
        connection.onDisconnect(ended::complete);
        try {
            DisconnectEvent event = ended.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertFalse(connection.isConnected(), "isConnected() after the disconnect event " + event);
            return event;
        } catch (TimeoutException e) {
            throw new AssertionError("connection still up " + TIMEOUT + " after it should have ended", e);
        } catch (ExecutionException e) {
            throw new AssertionError("disconnect listener failed", e.getCause());
        }
    }

    /** An address on the bench's address where nothing listens (a port just bound and released). */
    public static InetSocketAddress unusedLoopbackAddress() throws IOException {
        try (var socket = new ServerSocket(0, 1, ProviderUnderTest.address())) {
            return new InetSocketAddress(ProviderUnderTest.address(), socket.getLocalPort());
        }
    }
}
