package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrame;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrameReader;
import io.nvmf4j.verbs.softiwarp.mpa.MpaNegotiation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A listening endpoint (siw_create_listen / siw_accept_newconn): one thread accepts TCP connections and reads
 * their MPA requests without blocking on any single peer; a peer that sends no complete request within the MPA
 * timeout is dropped (siw's MPA timer), an invalid one is rejected or dropped as siw does (siw_proc_mpareq).
 */
final class SoftiwarpListener implements RdmaListener, Runnable {
    private static final Logger LOG = Logger.getLogger(SoftiwarpListener.class.getName());

    private final SoftiwarpDevice device;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final BlockingQueue<SoftiwarpConnectRequest> requests;
    private final InetSocketAddress localAddress;
    private final Thread thread;
    private volatile boolean closed;

    private static final class Pending {
        final MpaFrameReader reader = new MpaFrameReader();
        final long deadline;

        Pending(long deadline) {
            this.deadline = deadline;
        }
    }

    SoftiwarpListener(SoftiwarpDevice device, InetSocketAddress local, int backlog) throws IOException {
        this.device = device;
        this.server = ServerSocketChannel.open();
        server.bind(local, backlog);
        server.configureBlocking(false);
        this.selector = Selector.open();
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.requests = new ArrayBlockingQueue<>(Math.max(1, backlog));
        this.localAddress = (InetSocketAddress) server.getLocalAddress();
        this.thread = Thread.ofPlatform().name("softiwarp-listener-" + localAddress.getPort()).daemon(true)
                .unstarted(this);
        thread.start();
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public ConnectRequest accept(Duration timeout) throws VerbsException, InterruptedException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "listener on " + localAddress + " is closed");
        }
        SoftiwarpConnectRequest r = requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (r == null && closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "listener on " + localAddress + " is closed");
        }
        return r;
    }

    @Override
    public void run() {
        long timeoutNanos = device.config().mpaTimeout().toNanos();
        while (!closed) {
            try {
                selector.select(200);
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        SocketChannel ch = server.accept();
                        if (ch != null) {
                            ChannelIo.configure(ch);
                            ch.register(selector, SelectionKey.OP_READ, new Pending(System.nanoTime() + timeoutNanos));
                        }
                    } else if (key.isReadable()) {
                        readRequest(key);
                    }
                }
                long now = System.nanoTime();
                for (SelectionKey key : selector.keys()) {
                    if (key.attachment() instanceof Pending p && now - p.deadline > 0) {
                        LOG.log(Level.INFO, "softiwarp: no MPA request from {0} in time, dropping",
                                remoteOf((SocketChannel) key.channel()));
                        key.cancel();
                        ChannelIo.closeQuietly((SocketChannel) key.channel());
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    LOG.log(Level.WARNING, "softiwarp listener " + localAddress + " error", e);
                }
            }
        }
    }

    private void readRequest(SelectionKey key) {
        SocketChannel ch = (SocketChannel) key.channel();
        Pending pending = (Pending) key.attachment();
        MpaFrame frame;
        try {
            frame = pending.reader.read(ch);
        } catch (IOException | MpaException e) {
            LOG.log(Level.INFO, "softiwarp: bad MPA request from {0}: {1}", new Object[] {remoteOf(ch), e.getMessage()});
            key.cancel();
            ChannelIo.closeQuietly(ch);
            return;
        }
        if (frame == null) {
            return;
        }
        key.cancel();
        MpaNegotiation.Request request;
        try {
            request = MpaNegotiation.judgeRequest(frame, device.config().crcRequired());
        } catch (MpaException e) {
            LOG.log(Level.INFO, "softiwarp: rejecting MPA request from {0}: {1}", new Object[] {remoteOf(ch),
                    e.getMessage()});
            if (!frame.reply() && frame.revision() <= 2) {
                try {
                    ChannelIo.writeFully(ch, ByteBuffer.wrap(MpaNegotiation.rejectFor(frame).encode()),
                            System.nanoTime() + 1_000_000_000L);
                } catch (IOException ignored) {
                    // the peer is gone
                }
            }
            ChannelIo.closeQuietly(ch);
            return;
        }
        try {
            SoftiwarpConnectRequest r = new SoftiwarpConnectRequest(device, ch, request);
            if (!requests.offer(r)) {
                r.abandon(); // backlog full
            }
        } catch (IOException e) {
            ChannelIo.closeQuietly(ch);
        }
    }

    private static Object remoteOf(SocketChannel ch) {
        try {
            return ch.getRemoteAddress();
        } catch (IOException e) {
            return "?";
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
        SoftiwarpConnectRequest r;
        while ((r = requests.poll()) != null) {
            r.abandon();
        }
        device.connectionManagerImpl().forget(this);
    }
}
