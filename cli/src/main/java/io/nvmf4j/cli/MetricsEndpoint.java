package io.nvmf4j.cli;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Prometheus text exposition at {@code http://ADDRESS:PORT/metrics} (127.0.0.1 unless --metrics-address), served by
 * the JDK's HTTP server on one daemon thread (scrapes are rare; they must never compete with the poll groups or the
 * perf completion threads). The one endpoint of {@code serve --metrics-port} and {@code perf --metrics-port}.
 */
public final class MetricsEndpoint implements AutoCloseable {

    /**
     * Most connections the endpoint holds open at once ({@code jdk.httpserver.maxConnections}); beyond them the JDK
     * server stops accepting until one closes.
     */
    static final int MAX_CONNECTIONS = 16;
    /** Seconds a client has to send its whole request, and to take the whole response. */
    static final int MAX_REQUEST_SECONDS = 5;
    static final int MAX_RESPONSE_SECONDS = 10;

    static {
        // An endpoint anyone on the network may reach (--metrics-address 0.0.0.0) holds, for a peer that never
        // authenticated, only a bounded share: the JDK server's defaults are unlimited connections and no time
        // limit to send a request or read a response, so a client that connects and stays silent would hold a
        // connection (and one that stops reading, the one metrics thread) forever. The JDK reads these once, when
        // its first server is created, and only where the user has not set them (-D wins).
        setIfAbsent("jdk.httpserver.maxConnections", MAX_CONNECTIONS);
        setIfAbsent("sun.net.httpserver.maxReqTime", MAX_REQUEST_SECONDS);
        setIfAbsent("sun.net.httpserver.maxRspTime", MAX_RESPONSE_SECONDS);
        setIfAbsent("sun.net.httpserver.maxReqHeaders", 64);
        setIfAbsent("sun.net.httpserver.maxReqHeaderSize", 16 * 1024);
        setIfAbsent("sun.net.httpserver.idleInterval", 10);
    }

    private static void setIfAbsent(String property, int value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, Integer.toString(value));
        }
    }

    private final HttpServer server;
    private final ExecutorService executor;

    /** On {@code address}, nothing to refresh before a scrape. */
    public MetricsEndpoint(PrometheusMeterRegistry registry, InetSocketAddress address) throws IOException {
        this(registry, address.getAddress(), address.getPort(), () -> { });
    }

    /** On {@code address} (loopback by default; 0.0.0.0 for a Prometheus elsewhere), {@code beforeScrape} first. */
    public MetricsEndpoint(PrometheusMeterRegistry registry, InetAddress address, int port, Runnable beforeScrape)
            throws IOException {
        try {
            server = HttpServer.create(new InetSocketAddress(address, port), 8);
        } catch (java.net.BindException e) {
            // the JDK's text is the errno's alone ("Address already in use"): say which address, and whose flag
            throw new java.net.BindException("metrics endpoint " + address.getHostAddress() + ":" + port + ": "
                    + e.getMessage() + " (--metrics-port for another)");
        }
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                beforeScrape.run();
                byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "nvmf4j-metrics-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
