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

    private final HttpServer server;
    private final ExecutorService executor;

    /** On {@code address}, nothing to refresh before a scrape. */
    public MetricsEndpoint(PrometheusMeterRegistry registry, InetSocketAddress address) throws IOException {
        this(registry, address.getAddress(), address.getPort(), () -> { });
    }

    /** On {@code address} (loopback by default; 0.0.0.0 for a Prometheus elsewhere), {@code beforeScrape} first. */
    public MetricsEndpoint(PrometheusMeterRegistry registry, InetAddress address, int port, Runnable beforeScrape)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(address, port), 8);
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
