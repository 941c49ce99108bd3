package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.backend.BackendIoMode;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.rdma.RejectReason;
import io.nvmf4j.target.rdma.TransportObserver;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The NVMe/TCP transport of the target (Linux drivers/nvme/target/tcp.c, SPDK lib/nvmf/tcp.c): a listening socket
 * per TCP port, each with a thread that accepts connections and hands them, round robin, to a few poll groups
 * ({@link TcpPollGroup}) that serve them without a thread per connection. Any Linux host's
 * {@code nvme connect -t tcp} reaches it.
 *
 * <p>An accepted connection counts as unconnected until its NVMe Connect succeeds; beyond the bounds of
 * {@link TcpTransportOptions} more are closed at accept (logged, rate-limited, and counted as
 * {@link RejectReason#UNCONNECTED_LIMIT}).
 */
public final class TcpTransport implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());
    /** nvmet-tcp's {@code NVMET_TCP_BACKLOG}. */
    private static final int BACKLOG = 128;

    private final NvmeTarget target;
    private final TcpTransportOptions options;
    private final TransportObserver observer;
    private final List<TcpPollGroup> groups = new ArrayList<>();
    private final Map<Port, Listener> listeners = new ConcurrentHashMap<>();
    private final UnconnectedLimits unconnected;
    private final RejectLog rejectLog = new RejectLog();
    private final AtomicInteger nextGroup = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    private TcpTransport(NvmeTarget target, TcpTransportOptions options, TransportObserver observer) {
        this.target = target;
        this.options = options;
        this.observer = observer;
        this.unconnected = new UnconnectedLimits(options.maxUnconnected(), options.maxUnconnectedPerAddress());
    }

    /**
     * Starts the poll groups. Data buffers go up to the largest MDTS among the target's ports at this moment (at
     * least 1 MiB, at most 16 MiB).
     */
    public static TcpTransport open(NvmeTarget target, TcpTransportOptions options, TransportObserver observer)
            throws IOException {
        TcpTransport t = new TcpTransport(target, options, observer == null ? TransportObserver.NONE : observer);
        long largest = 1L << 20;
        for (Port p : target.ports()) {
            largest = Math.max(largest, Math.min(p.maxDataTransferBytes(), 1L << 24));
        }
        BackendSettings backend = target.backendSettings();
        backend = backend.withMode(backend.mode().resolve());
        try {
            for (int i = 0; i < options.pollGroups(); i++) {
                t.groups.add(new TcpPollGroup(i, options, largest, t.observer, t.rejectLog, backend));
            }
        } catch (IOException | RuntimeException e) {
            t.close();
            throw e;
        }
        LOG.log(Level.INFO, "TCP transport: {0} poll group(s), {1} MiB of buffers each, backend I/O on {2}",
                options.pollGroups(), options.bufferPoolBytes() >> 20,
                backend.mode() == BackendIoMode.URING ? "io_uring" : "threads");
        return t;
    }

    /**
     * Starts listening on the port's traddr:trsvcid (nvmet_tcp_add_port()); trsvcid 0 binds an ephemeral port.
     * Returns the bound address. A port of another transport type (RDMA) is refused with IllegalArgumentException.
     */
    public InetSocketAddress listen(Port port) throws IOException {
        if (port.trtype() != DiscoveryLogEntry.TRTYPE_TCP) {
            throw new IllegalArgumentException(port + " is not a TCP port; the TCP transport cannot listen on it");
        }
        if (closed.get()) {
            throw new IllegalStateException("TCP transport is closed");
        }
        InetSocketAddress address;
        try {
            address = new InetSocketAddress(InetAddress.getByName(port.traddr()), Integer.parseInt(port.trsvcid()));
        } catch (IllegalArgumentException | java.net.UnknownHostException e) {
            throw new IOException("port address " + port.traddr() + ":" + port.trsvcid() + " is not usable: "
                    + e.getMessage(), e);
        }
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, BACKLOG);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        Listener l = new Listener(port, server);
        if (listeners.putIfAbsent(port, l) != null) {
            server.close();
            throw new IllegalStateException(port + " is already listening");
        }
        l.thread.start();
        InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
        LOG.log(Level.INFO, "listening on {0} ({1})", bound, port);
        return bound;
    }

    /** Stops accepting on a port; its connections stay. */
    public void stopListening(Port port) {
        Listener l = listeners.remove(port);
        if (l != null) {
            l.close();
        }
    }

    /** Connections over all poll groups (connected or not yet). */
    public int queueCount() {
        int n = 0;
        for (TcpPollGroup g : groups) {
            n += g.queueCount();
        }
        return n;
    }

    /** Thread ids of the poll groups (tests measure their allocations). */
    long[] pollThreadIds() {
        long[] ids = new long[groups.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = groups.get(i).threadId();
        }
        return ids;
    }

    /** Connections that have not completed ICReq and Connect (tests). */
    int unconnectedCount() {
        return unconnected.total();
    }

    private void accepted(Port port, SocketChannel channel) {
        InetAddress peer;
        try {
            peer = ((InetSocketAddress) channel.getRemoteAddress()).getAddress();
        } catch (IOException e) {
            closeQuietly(channel);
            return;
        }
        String refused = unconnected.tryAcquire(peer);
        if (refused != null) {
            observer.peerRejected(RejectReason.UNCONNECTED_LIMIT);
            rejectLog.log(RejectReason.UNCONNECTED_LIMIT, peer.getHostAddress(), "TCP connection closed at accept: "
                    + refused);
            closeQuietly(channel);
            return;
        }
        TcpPollGroup g = groups.get(Math.floorMod(nextGroup.getAndIncrement(), groups.size()));
        g.adopt(channel, target, port, () -> unconnected.release(peer));
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    /** One port's accepting thread: blocking accepts on the listening socket until it is closed. */
    private final class Listener {
        final Port port;
        final ServerSocketChannel server;
        final Thread thread;

        Listener(Port port, ServerSocketChannel server) {
            this.port = port;
            this.server = server;
            this.thread = new Thread(this::run, "nvmf4j-tcp-listen-" + port.traddr() + ":" + port.trsvcid());
            this.thread.setDaemon(true);
        }

        private void run() {
            while (server.isOpen()) {
                SocketChannel c;
                try {
                    c = server.accept();
                } catch (IOException e) {
                    if (server.isOpen()) {
                        LOG.log(Level.WARNING, "{0}: accept failed: {1}", port, e.toString());
                        pause();
                    }
                    continue;
                }
                try {
                    accepted(port, c);
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, port + ": accepting a connection failed", e);
                    closeQuietly(c);
                }
            }
        }

        /** After a failed accept (out of descriptors, say): a short pause instead of a spinning loop. */
        private static void pause() {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void close() {
            try {
                server.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "{0}: closing the listener: {1}", port, e.getMessage());
            }
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Stops listening, closes every connection (commands already running finish first), stops and joins the poll
     * groups. The caller closes the {@link NvmeTarget} afterwards, which flushes the backends.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Port p : List.copyOf(listeners.keySet())) {
            stopListening(p);
        }
        for (TcpPollGroup g : groups) {
            g.close();
        }
    }
}
