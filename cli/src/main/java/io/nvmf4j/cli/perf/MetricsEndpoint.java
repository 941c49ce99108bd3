package io.nvmf4j.cli.perf;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Prometheus text exposition of a registry on {@code http://ADDRESS:PORT/metrics} (the JDK's own HTTP server,
 * one thread), so a run can be scraped while it goes. Closed with the run.
 */
public final class MetricsEndpoint implements AutoCloseable {

    private final HttpServer server;

    public MetricsEndpoint(PrometheusMeterRegistry registry, InetSocketAddress address) throws IOException {
        server = HttpServer.create(address, 4);
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
