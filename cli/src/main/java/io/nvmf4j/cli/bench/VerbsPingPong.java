package io.nvmf4j.cli.bench;

import io.nvmf4j.cli.perf.LatencyHistogram;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Send/Receive round trips at depth 1: the client Sends {@code size} bytes, the server's Receive
 * completes, it Sends {@code size} bytes back, the client's Receive completes. Both ends poll their
 * own completion queue on their own thread (the provider's await: spin, then block).
 */
final class VerbsPingPong {

    private static final int RECEIVES = 4;

    private VerbsPingPong() {
    }

    static Measurement run(RdmaDevice device, int size, Duration warmup, Duration window, boolean busyPoll)
            throws IOException, InterruptedException {
        try (VerbsLoopback loop = new VerbsLoopback(device, 2 * size, RECEIVES, size, busyPoll)) {
            Echo echo = new Echo(loop.server, size);
            Thread server = Thread.ofPlatform().name("bench-echo").daemon().start(echo);
            try {
                SendWorkRequest send = new SendWorkRequest(1).wrId(100).opcode(SendOpcode.SEND).signaled(true)
                        .local(loop.client.buffer, size, size);
                WorkCompletion[] wcs = newCompletions(16);
                LatencyHistogram warm = new LatencyHistogram();
                LatencyHistogram stats = new LatencyHistogram();
                AllocationMeter meter = new AllocationMeter();
                pingPong(loop.client, send, wcs, warm, System.nanoTime() + warmup.toNanos());
                meter.start();
                pingPong(loop.client, send, wcs, stats, System.nanoTime() + window.toNanos());
                meter.stop();
                echo.stop = true;
                server.join(TimeUnit.SECONDS.toMillis(5));
                if (echo.failure != null) {
                    throw new IOException("echo side failed: " + echo.failure.getMessage(), echo.failure);
                }
                return Measurement.latency(stats, meter);
            } finally {
                echo.stop = true;
            }
        }
    }

    private static void pingPong(VerbsLoopback.End end, SendWorkRequest send, WorkCompletion[] wcs,
            LatencyHistogram stats, long until) throws IOException {
        var qp = end.connection.queuePair();
        while (System.nanoTime() - until < 0) {
            long t0 = System.nanoTime();
            qp.postSend(send);
            boolean received = false;
            while (!received) {
                int n = end.await(wcs);
                for (int i = 0; i < n; i++) {
                    if (wcs[i].opcode() == WcOpcode.RECV) {
                        received = true;
                        qp.postReceive(end.receives[(int) wcs[i].wrId()]);
                    }
                }
            }
            stats.record(System.nanoTime() - t0);
        }
        drainSends(end, wcs);
    }

    /** Lets the last Sends complete so that the next round starts with an empty send queue. */
    private static void drainSends(VerbsLoopback.End end, WorkCompletion[] wcs) throws IOException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        while (System.nanoTime() - until < 0) {
            end.awaitSlice(wcs, TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    static WorkCompletion[] newCompletions(int n) {
        WorkCompletion[] wcs = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }

    /** The server: every Receive is answered by a Send of the same size. */
    private static final class Echo implements Runnable {
        private final VerbsLoopback.End end;
        private final SendWorkRequest send;
        private final WorkCompletion[] wcs = newCompletions(16);
        volatile boolean stop;
        volatile Exception failure;

        Echo(VerbsLoopback.End end, int size) {
            this.end = end;
            this.send = new SendWorkRequest(1).wrId(200).opcode(SendOpcode.SEND).signaled(true)
                    .local(end.buffer, size, size);
        }

        @Override
        public void run() {
            try {
                var qp = end.connection.queuePair();
                while (!stop) {
                    int n = end.awaitSlice(wcs, TimeUnit.MILLISECONDS.toNanos(100));
                    for (int i = 0; i < n; i++) {
                        WorkCompletion wc = wcs[i];
                        if (wc.status() != WcStatus.SUCCESS) {
                            if (!stop) {
                                throw new IOException("error completion " + wc);
                            }
                            return;
                        }
                        if (wc.opcode() == WcOpcode.RECV) {
                            qp.postReceive(end.receives[(int) wc.wrId()]);
                            qp.postSend(send);
                        }
                    }
                }
            } catch (IOException e) {
                failure = e;
            }
        }
    }
}
