package io.nvmf4j.cli.rping;

import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;

/**
 * rping's client side ({@code rping_run_client()} and {@code rping_test_client()}): per ping, fill the
 * start buffer with rping's pattern and advertise it, wait for the server's go-ahead (it has RDMA-Read
 * the start buffer), advertise the rdma buffer, wait for the go-ahead (it has RDMA-Written the data
 * there), then with {@code -V} compare the two buffers byte for byte.
 */
public final class RpingClient {

    private final RpingOptions options;
    private final Consumer<String> out;

    /** @param out takes the {@code -v} and {@code -d} lines (rping prints them to stdout) */
    public RpingClient(RpingOptions options, Consumer<String> out) {
        this.options = options;
        this.out = out;
    }

    /** Connects, pings {@code -C} times (forever with 0), disconnects. */
    public RpingResult run(RdmaDevice device) throws RpingException, VerbsException {
        int size = options.size();
        long timeoutNanos = options.timeout().toNanos();
        try (RpingSession session = new RpingSession(device, size, size, timeoutNanos, options.debug() ? out : null)) {
            session.debug("connecting to %s", options.address());
            RdmaConnection connection = device.connectionManager().connect(options.address(),
                    new ConnectParams(session.pd(), session.cq(), session.cq(), RpingSession.queuePairAttributes(),
                            null, session.prePostReceive()),
                    options.timeout());
            session.attach(connection);
            session.debug("rdma_connect successful: %s -> %s", connection.localAddress(), connection.remoteAddress());
            RpingResult result = pingLoop(session);
            session.awaitSendsCompleted();
            connection.disconnect();
            return result;
        }
    }

    private RpingResult pingLoop(RpingSession session) throws RpingException, VerbsException {
        int size = options.size();
        MemoryRegion start = session.startRegion();
        MemoryRegion rdma = session.rdmaRegion();
        MemorySegment startBuf = start.segment();
        MemorySegment rdmaBuf = rdma.segment();
        long began = System.nanoTime();
        long ping = 0;
        for (; options.count() == 0 || ping < options.count(); ping++) {
            RpingPattern.fill(startBuf, size, (int) ping);
            // not in rping: clear the sink, so that -V cannot pass on what an earlier ping left there
            rdmaBuf.asSlice(0, size).fill((byte) 0);
            session.sendInfo(start, size);
            session.awaitGoAhead("the server's go-ahead after its RDMA Read (ping " + ping + ")");
            session.sendInfo(rdma, size);
            session.awaitGoAhead("the server's go-ahead after its RDMA Write (ping " + ping + ")");
            if (options.validate()) {
                long at = startBuf.asSlice(0, size).mismatch(rdmaBuf.asSlice(0, size));
                if (at >= 0) {
                    throw new RpingException("data mismatch! ping " + ping + ": first difference at byte " + at
                            + ": sent 0x" + Integer.toHexString(startBuf.get(ValueLayout.JAVA_BYTE, at) & 0xff)
                            + ", got back 0x" + Integer.toHexString(rdmaBuf.get(ValueLayout.JAVA_BYTE, at) & 0xff));
                }
            }
            if (options.verbose()) {
                out.accept("ping data: " + RpingPattern.text(rdmaBuf, size));
            }
        }
        return new RpingResult(ping, size, options.validate(), System.nanoTime() - began);
    }
}
