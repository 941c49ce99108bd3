package io.nvmf4j.target.rdma;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on 127.0.0.1 between a scripted host and the target that can stop carrying the host's bytes: once
 * {@link #armFreeze() armed}, the first bytes the target sends (an RDMA Read Request for the command just sent)
 * freeze the host-to-target direction, so the host's Read Response never reaches the target. This is the peer that
 * never answers the target's Read Requests, made from an honest softiwarp host without touching its code.
 * {@link #freezeTargetToHost()} instead withholds everything the target sends, the host still sending.
 */
final class FreezingTcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final CopyOnWriteArrayList<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean armed;
    private volatile boolean frozen;
    private volatile boolean targetToHostFrozen;
    private final Thread acceptor;

    FreezingTcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "freezing-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", server.getLocalPort());
    }

    /** The next bytes from the target freeze the host-to-target direction for good. */
    void armFreeze() {
        armed = true;
    }

    boolean frozen() {
        return frozen;
    }

    /**
     * From now on nothing the target sends reaches the host (its Read Requests are lost, so never answered), while
     * the host can go on sending capsules.
     */
    void freezeTargetToHost() {
        targetToHostFrozen = true;
    }

    private void acceptLoop() {
        try {
            while (!server.isClosed()) {
                Socket host = server.accept();
                Socket upstream = new Socket();
                upstream.connect(target, 5000);
                host.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(host);
                sockets.add(upstream);
                pump(host, upstream, true);
                pump(upstream, host, false);
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void pump(Socket from, Socket to, boolean hostToTarget) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[65536];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (hostToTarget) {
                        while (frozen && !to.isClosed()) {
                            Thread.sleep(20); // hold the host's bytes: the target never sees them
                        }
                    } else {
                        if (armed) {
                            frozen = true;
                        }
                        while (targetToHostFrozen && !to.isClosed()) {
                            Thread.sleep(20);
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // either side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "freezing-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Resets both legs (the target sees the connection drop). */
    void cut() {
        for (Socket s : sockets) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // closed already
            }
            closeQuietly(s);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // best effort
        }
    }

    @Override
    public void close() {
        closeQuietly(server);
        cut();
    }

    private static void closeQuietly(ServerSocket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // best effort
        }
    }
}
