package io.nvmf4j.cli.host;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The byte counts of nvme-cli's {@code submit_io()}: a read writes exactly {@code -z} bytes of its buffer (less
 * than the blocks, or the blocks then zeros), a write takes at most {@code -z} bytes of input into a zeroed buffer
 * of the blocks' size.
 */
final class ExactStreams {

    private ExactStreams() {
    }

    /** Passes the first {@code limit} bytes to {@code out}; on close, pads with zeros up to {@code limit}. */
    static OutputStream output(OutputStream out, long limit) {
        return new FilterOutputStream(out) {
            private long written;

            @Override
            public void write(int b) throws IOException {
                if (written < limit) {
                    out.write(b);
                    written++;
                }
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                int n = (int) Math.min(len, Math.max(0, limit - written));
                out.write(b, off, n);
                written += n;
            }

            @Override
            public void close() throws IOException {
                byte[] zeros = new byte[8192];
                while (written < limit) {
                    int n = (int) Math.min(zeros.length, limit - written);
                    out.write(zeros, 0, n);
                    written += n;
                }
                super.close();
            }
        };
    }

    /** The first {@code take} bytes of {@code in} (fewer if it ends), then zeros, {@code total} bytes in all. */
    static InputStream input(InputStream in, long take, long total) {
        return new InputStream() {
            private long pos;
            private boolean ended;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (pos >= total) {
                    return -1;
                }
                int want = (int) Math.min(len, total - pos);
                int n = 0;
                if (!ended && pos < take) {
                    n = in.read(b, off, (int) Math.min(want, take - pos));
                    if (n < 0) {
                        ended = true;
                        n = 0;
                    }
                }
                if (n == 0) {
                    long zeroTo = ended || pos >= take ? total : take;
                    n = (int) Math.min(want, zeroTo - pos);
                    java.util.Arrays.fill(b, off, off + n, (byte) 0);
                }
                pos += n;
                return n;
            }
        };
    }
}
