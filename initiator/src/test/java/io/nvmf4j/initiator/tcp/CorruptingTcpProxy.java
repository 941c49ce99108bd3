package io.nvmf4j.initiator.tcp;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between the host and a real NVMe/TCP controller that passes PDUs through whole, and, once armed,
 * shifts the DATAO of the next C2HData PDU the controller sends by one block: the host must refuse it. It records
 * the PDU types the host sends, to see the H2CTermReq. It can also drop the next CapsuleResp (a command the
 * controller never answers).
 */
final class CorruptingTcpProxy implements AutoCloseable {

    private static final int C2H_DATA = 0x07;
    private static final int H2C_TERM_REQ = 0x02;
    private static final int CAPSULE_CMD = 0x04;
    private static final int CAPSULE_RESP = 0x05;

    private final ServerSocket server;
    private final InetSocketAddress controller;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicBoolean dropResponse = new AtomicBoolean();
    private final AtomicBoolean stopReading = new AtomicBoolean();
    /** Released at {@link #close()}: a pump that stopped reading waits on it. */
    private final CountDownLatch closed = new CountDownLatch(1);
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** FES of each H2CTermReq the host sent. */
    final List<Integer> hostTermReqs = new CopyOnWriteArrayList<>();

    CorruptingTcpProxy(InetSocketAddress controller) throws IOException {
        this(controller, 0);
    }

    /** {@code receiveBuffer}: SO_RCVBUF of the host's connections to the proxy (0: the system's). */
    CorruptingTcpProxy(InetSocketAddress controller, int receiveBuffer) throws IOException {
        this.controller = controller;
        this.server = new ServerSocket();
        if (receiveBuffer > 0) {
            server.setReceiveBufferSize(receiveBuffer); // before bind: accepted sockets take it from the start
        }
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        Thread.ofPlatform().daemon().name("proxy-accept").start(this::accept);
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", server.getLocalPort());
    }

    /** The next C2HData from the controller goes to the host with a DATAO one block too far. */
    void corruptNextC2hData() {
        armed.set(true);
    }

    /** The next CapsuleResp on an I/O queue never reaches the host. */
    void dropNextResponse() {
        dropResponse.set(true);
    }

    /**
     * After the host's next CapsuleCmd on an I/O queue (passed on), the proxy reads nothing more from that
     * connection until it closes; the controller's side still reaches the host.
     */
    void stopReadingAfterNextCommand() {
        stopReading.set(true);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket host = server.accept();
                Socket target = new Socket(controller.getAddress(), controller.getPort());
                host.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                sockets.add(host);
                sockets.add(target);
                AtomicInteger qid = new AtomicInteger(-1); // the queue the connection carries, from its Connect
                Thread.ofPlatform().daemon().start(() -> pump(host, target, true, qid));
                Thread.ofPlatform().daemon().start(() -> pump(target, host, false, qid));
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Copies PDU by PDU (common header, then the rest of PLEN). */
    private void pump(Socket from, Socket to, boolean fromHost, AtomicInteger qid) {
        try (InputStream rawIn = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            DataInputStream in = new DataInputStream(rawIn);
            byte[] ch = new byte[8];
            while (true) {
                in.readFully(ch);
                long plen = (ch[4] & 0xFFL) | (ch[5] & 0xFFL) << 8 | (ch[6] & 0xFFL) << 16 | (ch[7] & 0xFFL) << 24;
                byte[] rest = new byte[(int) plen - 8];
                in.readFully(rest);
                int type = ch[0] & 0xFF;
                if (fromHost && type == H2C_TERM_REQ) {
                    hostTermReqs.add((rest[0] & 0xFF) | (rest[1] & 0xFF) << 8); // FES at byte 8
                }
                if (!fromHost && type == C2H_DATA && armed.compareAndSet(true, false)) {
                    rest[5] = (byte) (rest[5] + 2); // DATAO (bytes 12..15, little-endian) + 512
                }
                if (fromHost && type == CAPSULE_CMD && (rest[0] & 0xFF) == 0x7F && rest[4] == 0x01) {
                    qid.compareAndSet(-1, (rest[42] & 0xFF) | (rest[43] & 0xFF) << 8); // Connect: CDW10 31:16
                }
                if (!fromHost && type == CAPSULE_RESP && qid.get() > 0 && dropResponse.compareAndSet(true, false)) {
                    continue;
                }
                out.write(ch);
                out.write(rest);
                out.flush();
                if (fromHost && type == CAPSULE_CMD && qid.get() > 0 && stopReading.compareAndSet(true, false)) {
                    closed.await();
                    return;
                }
            }
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        closed.countDown();
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
