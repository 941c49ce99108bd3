package io.nvmf4j.cli.rping;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * rping's server side ({@code rping_run_server()} and {@code rping_test_server()}), one connection:
 * per ping, wait for the client's start advertisement, RDMA-Read it into the rdma buffer, Send a
 * go-ahead, wait for the client's sink advertisement, RDMA-Write the ping back there (the C string
 * and its NUL, as rping does), Send a go-ahead. The session ends when the client disconnects
 * between pings. With {@code -V} this server also checks every ping it read against rping's
 * pattern (rping's own server does not check).
 */
public final class RpingServer {

    /** {@code RPING_BUFSIZE}: the rdma buffer takes any ping a valid client sends. */
    static final int BUFFER_SIZE = 64 * 1024;

    private final RpingOptions options;
    private final Consumer<String> out;

    /** @param out takes the {@code -v} and {@code -d} lines (rping prints them to stdout) */
    public RpingServer(RpingOptions options, Consumer<String> out) {
        this.options = options;
        this.out = out;
    }

    /**
     * Listens on the options' address, serves one client, returns when it has disconnected.
     *
     * @param onListening told the bound address once the listener is up (scripts wait for it)
     */
    public RpingResult run(RdmaDevice device, Consumer<InetSocketAddress> onListening)
            throws RpingException, VerbsException, InterruptedException {
        long timeoutNanos = options.timeout().toNanos();
        try (RdmaListener listener = device.connectionManager().listen(options.address(), 3)) {
            onListening.accept(listener.localAddress());
            ConnectRequest request = listener.accept(options.timeout());
            if (request == null) {
                throw new RpingException("no client connected within " + options.timeout().toSeconds() + " s");
            }
            int bufferSize = Math.max(BUFFER_SIZE, options.size());
            try (RpingSession session = new RpingSession(device, bufferSize, 0, timeoutNanos,
                    options.debug() ? out : null)) {
                session.debug("connect request from %s (IRD %d, ORD %d)", request.remoteAddress(), request.peerIrd(),
                        request.peerOrd());
                session.attach(request.accept(new AcceptParams(session.pd(), session.cq(), session.cq(),
                        RpingSession.queuePairAttributes(), null, session.prePostReceive())));
                RpingResult result = serve(session);
                session.connection().disconnect();
                return result;
            }
        }
    }

    private RpingResult serve(RpingSession session) throws RpingException, VerbsException {
        MemorySegment buffer = session.rdmaRegion().segment();
        long began = System.nanoTime();
        long pings = 0;
        int size = 0;
        while (true) {
            RpingRdmaInfo source;
            try {
                source = session.awaitInfo("the client's start advertisement (ping " + pings + ")");
            } catch (RpingDisconnectedException e) {
                // rping_test_server(): a disconnect between pings is the normal end
                session.debug("client disconnected after %d pings", pings);
                break;
            }
            size = source.size();
            if (size <= 0 || size > buffer.byteSize()) {
                throw new RpingException("client advertised " + Integer.toUnsignedString(size)
                        + " bytes; this server's buffer holds " + buffer.byteSize());
            }
            buffer.asSlice(0, size).fill((byte) 0);
            session.postRdma(SendOpcode.RDMA_READ, source.address(), source.rkey(), size);
            session.awaitRead();
            if (options.validate()) {
                int at = RpingPattern.firstMismatch(buffer, size, (int) pings);
                if (at >= 0) {
                    throw new RpingException("ping " + pings + " read from the client is not rping's pattern: byte "
                            + at + " is 0x" + Integer.toHexString(buffer.get(ValueLayout.JAVA_BYTE, at) & 0xff));
                }
            }
            if (options.verbose()) {
                out.accept("server ping data: " + RpingPattern.text(buffer, size));
            }
            session.sendGoAhead();
            RpingRdmaInfo sink = session.awaitInfo("the client's sink advertisement (ping " + pings + ")");
            // rping writes strlen(rdma_buf) + 1 bytes: the ping's C string and its NUL
            int length = Math.min(RpingPattern.cStringLength(buffer, size) + 1, size);
            if (Integer.compareUnsigned(length, sink.size()) > 0) {
                throw new RpingException("client's sink holds " + Integer.toUnsignedString(sink.size())
                        + " bytes, the ping has " + length);
            }
            session.postRdma(SendOpcode.RDMA_WRITE, sink.address(), sink.rkey(), length);
            session.awaitWrite();
            session.sendGoAhead();
            pings++;
        }
        if (options.count() > 0 && pings != options.count()) {
            throw new RpingException("the client left after " + pings + " of " + options.count() + " pings");
        }
        return new RpingResult(pings, size, options.validate(), System.nanoTime() - began);
    }
}
