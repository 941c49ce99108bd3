package io.nvmf4j.cli.bench;

import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WorkCompletion;
import java.io.IOException;
import java.time.Duration;

/**
 * One-sided bandwidth: the client keeps {@code depth} RDMA Writes (or Reads) of {@code size} bytes
 * outstanding against the server's buffer and re-posts each work request as it completes. The server
 * application does nothing: its provider places the Writes and answers the Read Requests.
 */
final class VerbsBandwidth {

    private VerbsBandwidth() {
    }

    static Measurement run(RdmaDevice device, SendOpcode opcode, int size, int depth, Duration warmup,
            Duration window, boolean busyPoll) throws IOException, InterruptedException {
        try (VerbsLoopback loop = new VerbsLoopback(device, size, 1, 64, busyPoll)) {
            SendWorkRequest[] wrs = new SendWorkRequest[depth];
            for (int i = 0; i < depth; i++) {
                wrs[i] = new SendWorkRequest(1).wrId(i).opcode(opcode).signaled(true)
                        .local(loop.client.buffer, 0, size)
                        .remote(loop.server.buffer.address(), loop.server.buffer.rkey());
            }
            WorkCompletion[] wcs = VerbsPingPong.newCompletions(depth);
            var qp = loop.client.connection.queuePair();
            for (SendWorkRequest wr : wrs) {
                qp.postSend(wr);
            }
            AllocationMeter meter = new AllocationMeter();
            long warmupEnd = System.nanoTime() + warmup.toNanos();
            while (System.nanoTime() - warmupEnd < 0) {
                repost(loop.client, wrs, wcs);
            }
            meter.start();
            long t0 = System.nanoTime();
            long end = t0 + window.toNanos();
            long ops = 0;
            while (System.nanoTime() - end < 0) {
                ops += repost(loop.client, wrs, wcs);
            }
            long elapsed = System.nanoTime() - t0;
            meter.stop();
            // let the outstanding ones finish before the connection closes
            int outstanding = depth;
            while (outstanding > 0) {
                outstanding -= loop.client.await(wcs);
            }
            return Measurement.bandwidth(ops * size, elapsed, ops, meter);
        }
    }

    /** Waits for completions and re-posts each completed work request; returns how many completed. */
    private static int repost(VerbsLoopback.End end, SendWorkRequest[] wrs, WorkCompletion[] wcs)
            throws IOException {
        int n = end.await(wcs);
        var qp = end.connection.queuePair();
        for (int i = 0; i < n; i++) {
            qp.postSend(wrs[(int) wcs[i].wrId()]);
        }
        return n;
    }
}
