package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.provider.ProviderListener;
import io.nvmf4j.verbs.softiwarp.mpa.MpaException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrame;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrameReader;
import io.nvmf4j.verbs.softiwarp.mpa.MpaNegotiation;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.lang.System.Logger;

/**
 * A listening endpoint (siw_create_listen / siw_accept_newconn): one thread accepts TCP connections and reads
 * their MPA requests without blocking on any single peer; a peer that sends no complete request within the MPA
 * timeout is dropped (siw's MPA timer), an invalid one is rejected or dropped as siw does (siw_proc_mpareq).
 *
 * <p>What a peer that never completes MPA can hold is bounded: at most {@code maxPendingPerListener} such
 * connections per listener and {@code maxPendingPerPeer} per peer IP address. A new connection over either cap
 * closes the oldest pending one (of that address, or of the listener), not itself: a flood of silent sockets then
 * delays a well-behaved client - which sends its MPA request right after connecting - instead of locking it out.
 * A valid request the application neither accepts nor rejects within the MPA timeout is rejected. Every refusal
 * is counted in the device's {@link RejectedPeers} and logged once per connection, rate-limited, without a stack
 * trace.
 */
final class SoftiwarpListener extends ProviderListener<SoftiwarpConnectRequest> implements Runnable {
    private static final Logger LOG = System.getLogger(SoftiwarpListener.class.getName());
    /** Connections taken per wake-up before timeouts are looked at again. */
    private static final int ACCEPTS_PER_WAKEUP = 64;

    private final SoftiwarpDevice device;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final InetSocketAddress localAddress;
    private final Thread thread;
    private final PeerLog peerLog = new PeerLog(LOG);
    private final RejectedPeers rejected;
    private final int maxPending;
    private final int maxPendingPerPeer;
    private final long timeoutNanos;
    /** Connections without a complete MPA request, oldest first (listener thread only). */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final Map<InetAddress, ArrayDeque<Pending>> pendingByPeer = new HashMap<>();
    private volatile int pendingCount;
    private volatile boolean closed;

    private static final class Pending {
        final MpaFrameReader reader = new MpaFrameReader();
        final SocketChannel channel;
        final InetAddress peer;
        final long deadline;
        SelectionKey key;

        Pending(SocketChannel channel, InetAddress peer, long deadline) {
            this.channel = channel;
            this.peer = peer;
            this.deadline = deadline;
        }
    }

    SoftiwarpListener(SoftiwarpDevice device, InetSocketAddress local, int backlog) throws IOException {
        super(SoftiwarpConnectRequest.class, backlog);
        this.device = device;
        this.rejected = device.rejectedPeers();
        SoftiwarpConfig config = device.config();
        this.maxPending = config.maxPendingPerListener();
        this.maxPendingPerPeer = config.maxPendingPerPeer();
        this.timeoutNanos = config.mpaTimeout().toNanos();
        this.server = ServerSocketChannel.open();
        // the kernel's accept queue only has to bridge until this thread accepts (it takes all there are at each
        // wake-up, then applies the caps): as deep as the pending cap, so a burst of connects loses no SYN
        server.bind(local, Math.max(backlog, maxPending));
        server.configureBlocking(false);
        this.selector = Selector.open();
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.localAddress = (InetSocketAddress) server.getLocalAddress();
        this.thread = Thread.ofPlatform().name("softiwarp-listener-" + localAddress.getPort()).daemon(true)
                .unstarted(this);
        thread.start();
    }

    /** Connections that have not completed their MPA request yet. */
    int pendingCount() {
        return pendingCount;
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void run() {
        long selectMillis = Math.max(5, Math.min(200, timeoutNanos / 4_000_000));
        while (!closed) {
            try {
                selector.select(selectMillis);
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    peerLog.info("softiwarp listener {0}: select failed: {1}", localAddress, e.toString());
                }
                continue;
            }
            Iterator<SelectionKey> it = selector.selectedKeys().iterator();
            while (it.hasNext()) {
                SelectionKey key = it.next();
                it.remove();
                // one connection's failure is that connection's: it never ends this thread
                try {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        for (int i = 0; i < ACCEPTS_PER_WAKEUP && acceptOne(); i++) {
                            // drain the accept queue
                        }
                    } else if (key.isReadable()) {
                        readRequest(key);
                    }
                } catch (IOException | RuntimeException e) {
                    if (key.attachment() instanceof Pending p) {
                        drop(p);
                    }
                    if (!closed) {
                        peerLog.info("softiwarp listener {0}: {1}", localAddress, e.toString());
                    }
                }
            }
            try {
                expire(System.nanoTime());
            } catch (RuntimeException e) {
                peerLog.info("softiwarp listener {0}: {1}", localAddress, e.toString());
            }
        }
    }

    /**
     * Takes one TCP connection, making room under the caps by closing the oldest pending ones; false if there was
     * none.
     */
    private boolean acceptOne() throws IOException {
        SocketChannel ch = server.accept();
        if (ch == null) {
            return false;
        }
        InetAddress peer = ((InetSocketAddress) ch.getRemoteAddress()).getAddress();
        ArrayDeque<Pending> ofPeer = pendingByPeer.get(peer);
        if (ofPeer != null && ofPeer.size() >= maxPendingPerPeer && !requestArrived(ofPeer.peekFirst())) {
            Pending oldest = ofPeer.peekFirst();
            rejected.add(RejectedPeers.Reason.PEER_PENDING_LIMIT);
            peerLog.info("softiwarp: {0} has {1} connections without an MPA request, closing its oldest", peer,
                    ofPeer.size());
            drop(oldest);
        }
        if (pending.size() >= maxPending && !requestArrived(pending.peekFirst())) {
            Pending oldest = pending.peekFirst();
            rejected.add(RejectedPeers.Reason.LISTENER_PENDING_LIMIT);
            peerLog.info("softiwarp listener {0}: {1} connections without an MPA request, closing the oldest ({2})",
                    localAddress, pending.size(), oldest.peer);
            drop(oldest);
        }
        try {
            ChannelIo.configure(ch);
            Pending p = new Pending(ch, peer, System.nanoTime() + timeoutNanos);
            p.key = ch.register(selector, SelectionKey.OP_READ, p);
            pending.addLast(p);
            pendingByPeer.computeIfAbsent(peer, a -> new ArrayDeque<>()).addLast(p);
            pendingCount = pending.size();
        } catch (IOException | RuntimeException e) {
            ChannelIo.closeQuietly(ch);
            throw e;
        }
        return true;
    }

    /**
     * Reads what {@code oldest} has before it is evicted: its request may be waiting in the socket (a burst of
     * accepts is handled before the reads of the same wake-up). True if that ended its pending state.
     */
    private boolean requestArrived(Pending oldest) {
        readRequest(oldest.key);
        return !pending.contains(oldest);
    }

    /** Forgets a pending connection (its request came in, or it is dropped). */
    private void forget(Pending p) {
        if (pending.remove(p)) {
            ArrayDeque<Pending> ofPeer = pendingByPeer.get(p.peer);
            if (ofPeer != null) {
                ofPeer.remove(p);
                if (ofPeer.isEmpty()) {
                    pendingByPeer.remove(p.peer);
                }
            }
            pendingCount = pending.size();
        }
        if (p.key != null) {
            p.key.cancel();
        }
    }

    private void drop(Pending p) {
        forget(p);
        ChannelIo.closeQuietly(p.channel);
    }

    /**
     * Drops connections past their MPA deadline (oldest first: deadlines follow accept order) and rejects requests
     * the application left unanswered for as long.
     */
    private void expire(long now) {
        Pending p;
        while ((p = pending.peekFirst()) != null && now - p.deadline > 0) {
            rejected.add(RejectedPeers.Reason.MPA_TIMEOUT);
            peerLog.info("softiwarp: no MPA request from {0} in time, dropping", p.peer);
            drop(p);
        }
        requests.expire(now, timeoutNanos, this::acceptTimedOut);
    }

    private void acceptTimedOut(SoftiwarpConnectRequest r) {
        if (r.abandon(rejected, RejectedPeers.Reason.ACCEPT_TIMEOUT)) {
            peerLog.info("softiwarp: the application did not answer the connection request of {0} in time,"
                    + " rejected", r.remoteAddress());
        }
    }

    private void readRequest(SelectionKey key) {
        SocketChannel ch = (SocketChannel) key.channel();
        Pending p = (Pending) key.attachment();
        MpaFrame frame;
        try {
            frame = p.reader.read(ch);
        } catch (MpaException e) {
            rejected.add(RejectedPeers.Reason.MPA_INVALID);
            peerLog.info("softiwarp: bad MPA request from {0}: {1}", p.peer, e.getMessage());
            drop(p);
            return;
        } catch (IOException e) {
            drop(p); // the peer closed or reset: nothing to refuse
            return;
        }
        if (frame == null) {
            return;
        }
        forget(p);
        MpaNegotiation.Request request;
        try {
            request = MpaNegotiation.judgeRequest(frame, device.config().crcRequired());
        } catch (MpaException e) {
            rejected.add(RejectedPeers.Reason.MPA_INVALID);
            peerLog.info("softiwarp: rejecting MPA request from {0}: {1}", p.peer, e.getMessage());
            if (!frame.reply() && frame.revision() <= 2) {
                // one non-blocking write: a fresh socket takes a few hundred bytes at once, and a peer that does
                // not read must not hold this thread
                ChannelIo.writeOnce(ch, ByteBuffer.wrap(MpaNegotiation.rejectFor(frame).encode()));
            }
            ChannelIo.closeQuietly(ch);
            return;
        }
        try {
            SoftiwarpConnectRequest r = new SoftiwarpConnectRequest(device, ch, request);
            if (!requests.offer(r)) {
                rejected.add(RejectedPeers.Reason.BACKLOG_FULL);
                peerLog.info("softiwarp listener {0}: accept queue full, rejecting {1}", localAddress, p.peer);
                r.abandon();
            }
        } catch (IOException e) {
            ChannelIo.closeQuietly(ch);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        requests.stopTaking();
        selector.wakeup();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            for (SelectionKey key : selector.keys()) {
                if (key.channel() instanceof SocketChannel ch) {
                    ChannelIo.closeQuietly(ch);
                }
            }
            selector.close();
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        // rdma_destroy_id of a listener: requests queued or taken but never answered are refused (the connector
        // must not wait for its MPA timeout)
        requests.close();
        device.connectionManagerImpl().forget(this);
    }
}
