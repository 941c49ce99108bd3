package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The metrics endpoint as a peer that never authenticates meets it: clients that connect and stay silent, or send
 * half a request, are closed after the request time bound, and more than the connection bound cannot keep a
 * scraper out for longer than that.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsEndpointBoundsTest {

    private static final int SILENT = MetricsEndpoint.MAX_CONNECTIONS + 8;

    @Test
    void silentAndHalfRequestClientsAreClosedAndAScraperIsAnsweredWithinTheRequestBound() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.counter("nvmf4j_bounds_test").increment();
        try (MetricsEndpoint endpoint = new MetricsEndpoint(registry, InetAddress.getLoopbackAddress(), 0, () -> { })) {
            int port = endpoint.address().getPort();
            List<Socket> attackers = new ArrayList<>();
            try {
                for (int i = 0; i < SILENT; i++) {
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                    if (i % 2 == 1) {
                        OutputStream out = s.getOutputStream();
                        out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush(); // and never the blank line that ends the request
                    }
                    attackers.add(s);
                }
                // while the silent ones hold every connection the server closes a new one at once (a scraper's
                // next try, as Prometheus makes at its next interval); once they are closed it is answered
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MetricsEndpoint.MAX_REQUEST_SECONDS + 10);
                int status = -1;
                IOException last = null;
                while (status != 200 && System.nanoTime() < deadline) {
                    try {
                        status = scrape(port);
                    } catch (IOException e) {
                        last = e;
                        Thread.sleep(200);
                    }
                }
                assertEquals(200, status, "a scraper beside " + SILENT + " silent connections, within "
                        + (MetricsEndpoint.MAX_REQUEST_SECONDS + 10) + " s; last failure " + last);
                for (Socket s : attackers) {
                    s.setSoTimeout((MetricsEndpoint.MAX_REQUEST_SECONDS + 15) * 1000);
                    assertTrue(closedByServer(s), "a silent connection is closed within the request bound");
                }
            } finally {
                for (Socket s : attackers) {
                    s.close();
                }
            }
        }
    }

    /** Reads until the server closes (true) or the socket's read timeout passes (false). */
    private static boolean closedByServer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // a 4xx answer to the half request may come first; the close is what counts
            }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the server
        }
    }

    private static int scrape(int port) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/metrics").toURL()
                .openConnection();
        c.setConnectTimeout(30_000);
        c.setReadTimeout(30_000);
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }
}
