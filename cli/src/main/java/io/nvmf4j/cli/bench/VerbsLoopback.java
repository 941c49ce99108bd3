package io.nvmf4j.cli.bench;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Two ends of one reliable connection over 127.0.0.1 through a provider's connection manager, each
 * with its own protection domain, completion queue and one registered buffer of {@code bufferSize}
 * bytes (remote read/write allowed), and {@code receives} receives pre-posted on each end.
 */
final class VerbsLoopback implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(20);

    final End client;
    final End server;
    private RdmaListener listener;

    /** One side: domain, CQ, buffer, its receive work requests, the connection. */
    static final class End {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemoryRegion buffer;
        final ReceiveWorkRequest[] receives;
        final boolean busyPoll;
        RdmaConnection connection;

        End(RdmaDevice device, int bufferSize, int receives, int receiveSize, boolean busyPoll)
                throws VerbsException {
            this.busyPoll = busyPoll;
            pd = device.allocatePd();
            cq = device.createCompletionQueue(1024);
            // a direct buffer, as the target's pool and the host's buffers: softiwarp sends out of it in place
            buffer = pd.register(ByteBuffer.allocateDirect(bufferSize + 4096).alignedSlice(4096).slice(0, bufferSize),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
            this.receives = new ReceiveWorkRequest[receives];
            for (int i = 0; i < receives; i++) {
                this.receives[i] = new ReceiveWorkRequest(1).wrId(i).local(buffer, 0, receiveSize);
            }
        }

        QueuePairSetup prePost() {
            return qp -> {
                for (ReceiveWorkRequest r : receives) {
                    qp.postReceive(r);
                }
            };
        }

        /**
         * Up to {@code nanos} for completions: the CQ's await (spin, then park), or with busy polling
         * {@code poll} in a loop on this thread. Returns 0 on timeout.
         */
        int awaitSlice(WorkCompletion[] out, long nanos) throws IOException {
            if (busyPoll) {
                long deadline = System.nanoTime() + nanos;
                int n;
                while ((n = cq.poll(out)) == 0 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                return n;
            }
            try {
                return cq.await(out, nanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }

        /** Waits up to {@link #TIMEOUT} for completions; fails on an error status or on the timeout. */
        int await(WorkCompletion[] out) throws IOException {
            int n = awaitSlice(out, TIMEOUT.toNanos());
            if (n == 0) {
                throw new IOException("no completion within " + TIMEOUT.toSeconds() + " s");
            }
            for (int i = 0; i < n; i++) {
                if (out[i].status() != WcStatus.SUCCESS) {
                    throw new IOException("error completion " + out[i]);
                }
            }
            return n;
        }

        void close() {
            if (connection != null) {
                connection.close();
            }
            buffer.close();
            cq.close();
            pd.close();
        }
    }

    /**
     * Where the pair listens and connects: {@code nvmf4j.bench.address}, default 127.0.0.1. A kernel RDMA device
     * (siw, rxe) needs the address of the netdev it is bound to (bench/ibverbs-lab.sh).
     */
    static InetAddress address() throws IOException {
        String address = System.getProperty("nvmf4j.bench.address");
        return address == null || address.isBlank() ? InetAddress.getLoopbackAddress() : InetAddress.getByName(address);
    }

    VerbsLoopback(RdmaDevice device, int bufferSize, int receives, int receiveSize, boolean busyPoll)
            throws IOException, InterruptedException {
        QueuePairAttributes attributes = QueuePairAttributes.defaults().withQueueDepths(128, Math.max(1, receives))
                .withSge(1, 1);
        client = new End(device, bufferSize, receives, receiveSize, busyPoll);
        server = new End(device, bufferSize, receives, receiveSize, busyPoll);
        // the listener stays open while the connection is in use, as a target's would
        listener = device.connectionManager().listen(new InetSocketAddress(address(), 0), 1);
        try {
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    ConnectRequest request = listener.accept(TIMEOUT);
                    if (request == null) {
                        throw new IOException("no connect request within " + TIMEOUT.toSeconds() + " s");
                    }
                    return request.accept(new AcceptParams(server.pd, server.cq, server.cq, attributes, null,
                            server.prePost()));
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            client.connection = device.connectionManager().connect(listener.localAddress(),
                    new ConnectParams(client.pd, client.cq, client.cq, attributes, null, client.prePost()), TIMEOUT);
            server.connection = accepted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            close();
            throw new IOException("loopback connection failed: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
            client.close();
        } finally {
            server.close();
        }
    }
}
