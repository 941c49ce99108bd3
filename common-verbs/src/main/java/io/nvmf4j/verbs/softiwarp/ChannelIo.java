package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Small blocking-with-deadline helpers for the connection setup on non-blocking sockets. */
final class ChannelIo {
    private ChannelIo() {
    }

    /** siw sets TCP_NODELAY on every connection (siw_tcp_nagle = false). */
    static void configure(SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    /** Writes all of {@code data} before {@code deadlineNanos} (System.nanoTime based). */
    static void writeFully(SocketChannel ch, ByteBuffer data, long deadlineNanos) throws IOException, VerbsException {
        while (data.hasRemaining()) {
            if (ch.write(data) == 0) {
                if (System.nanoTime() - deadlineNanos > 0) {
                    throw new VerbsException(VerbsErrorCode.TIMED_OUT, "peer does not take the MPA frame");
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new VerbsException(VerbsErrorCode.IO_ERROR, "interrupted", e);
                }
            }
        }
    }

    /** One non-blocking write attempt (best effort: a frame the socket does not take at once is dropped). */
    static void writeOnce(SocketChannel ch, ByteBuffer data) {
        try {
            ch.write(data);
        } catch (IOException ignored) {
            // the peer is gone
        }
    }

    static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
