package io.nvmf4j.cli.bench;

import io.nvmf4j.cli.perf.LatencyHistogram;
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
 * The TCP counterpart of {@link VerbsPingPong}: {@code size} bytes out, {@code size} bytes back, over
 * blocking NIO socket channels on 127.0.0.1 with TCP_NODELAY and direct buffers, an echo thread on the
 * other end. Blocking reads sleep in the kernel, as {@code tcprr} without TCPRR_SPIN does.
 */
final class TcpPingPong {

    private TcpPingPong() {
    }

    static Measurement run(int size, Duration warmup, Duration window) throws IOException, InterruptedException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread echo = Thread.ofPlatform().name("bench-tcp-echo").daemon().start(() -> echo(listener, size));
            try (SocketChannel channel = SocketChannel.open(listener.getLocalAddress())) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer out = ByteBuffer.allocateDirect(size);
                ByteBuffer in = ByteBuffer.allocateDirect(size);
                LatencyHistogram warm = new LatencyHistogram();
                LatencyHistogram stats = new LatencyHistogram();
                AllocationMeter meter = new AllocationMeter();
                loop(channel, out, in, warm, System.nanoTime() + warmup.toNanos());
                meter.start();
                loop(channel, out, in, stats, System.nanoTime() + window.toNanos());
                meter.stop();
                return Measurement.latency(stats, meter);
            } finally {
                echo.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
    }

    private static void loop(SocketChannel channel, ByteBuffer out, ByteBuffer in, LatencyHistogram stats, long until)
            throws IOException {
        while (System.nanoTime() - until < 0) {
            long t0 = System.nanoTime();
            out.clear();
            while (out.hasRemaining()) {
                channel.write(out);
            }
            in.clear();
            while (in.hasRemaining()) {
                if (channel.read(in) < 0) {
                    throw new IOException("echo side closed");
                }
            }
            stats.record(System.nanoTime() - t0);
        }
    }

    private static void echo(ServerSocketChannel listener, int size) {
        try (SocketChannel peer = listener.accept()) {
            peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer buffer = ByteBuffer.allocateDirect(size);
            while (true) {
                buffer.clear();
                while (buffer.hasRemaining()) {
                    if (peer.read(buffer) < 0) {
                        return;
                    }
                }
                buffer.flip();
                while (buffer.hasRemaining()) {
                    peer.write(buffer);
                }
            }
        } catch (IOException e) {
            // the client closed mid-message at the end of the run
        }
    }
}
