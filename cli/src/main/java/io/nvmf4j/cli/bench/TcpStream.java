package io.nvmf4j.cli.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The TCP counterpart of {@link VerbsBandwidth}: one stream over 127.0.0.1, the sender writing
 * {@code size}-byte messages from a direct buffer as fast as it can, a reader thread draining them.
 * Bandwidth as the sender sees it (like an RDMA completion: handed to the kernel).
 */
final class TcpStream {

    private TcpStream() {
    }

    static Measurement run(int size, Duration warmup, Duration window) throws IOException, InterruptedException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread sink = Thread.ofPlatform().name("bench-tcp-sink").daemon().start(() -> drain(listener));
            try (SocketChannel channel = SocketChannel.open(listener.getLocalAddress())) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer out = ByteBuffer.allocateDirect(size);
                AllocationMeter meter = new AllocationMeter();
                send(channel, out, System.nanoTime() + warmup.toNanos());
                meter.start();
                long t0 = System.nanoTime();
                long ops = send(channel, out, t0 + window.toNanos());
                long elapsed = System.nanoTime() - t0;
                meter.stop();
                return Measurement.bandwidth(ops * size, elapsed, ops, meter);
            } finally {
                sink.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
    }

    private static long send(SocketChannel channel, ByteBuffer out, long until) throws IOException {
        long ops = 0;
        while (System.nanoTime() - until < 0) {
            out.clear();
            while (out.hasRemaining()) {
                channel.write(out);
            }
            ops++;
        }
        return ops;
    }

    private static void drain(ServerSocketChannel listener) {
        try (SocketChannel peer = listener.accept()) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
            while (peer.read(buffer.clear()) >= 0) {
                // discard
            }
        } catch (IOException e) {
            // the sender closed at the end of the run
        }
    }
}
