package io.nvmf4j.cli.host.nvmecli;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * nvme-cli's {@code d(buf, len, 16, 1)}: a header row of column numbers, then per 16 bytes the offset, the bytes
 * in hex and the printable ones between quotes ({@code nvme get-log} without {@code -b}).
 */
public final class HexDump {

    private static final int WIDTH = 16;

    private HexDump() {
    }

    public static void print(PrintWriter out, MemorySegment buf, int len) {
        StringBuilder sb = new StringBuilder("     ");
        for (int i = 0; i < WIDTH; i++) {
            sb.append(String.format("%3x", i));
        }
        StringBuilder ascii = new StringBuilder(WIDTH);
        for (int i = 0; i < len; i++) {
            if (i % WIDTH == 0) {
                sb.append(String.format("%n%04x:", i));
            }
            int b = Byte.toUnsignedInt(buf.get(ValueLayout.JAVA_BYTE, i));
            sb.append(String.format(" %02x", b));
            ascii.append(b >= '!' && b <= '~' ? (char) b : '.');
            if ((i + 1) % WIDTH == 0) {
                sb.append(" \"").append(ascii).append('"');
                ascii.setLength(0);
            }
        }
        if (len % WIDTH != 0) {
            int missing = WIDTH - len % WIDTH;
            sb.append(' ').repeat(' ', 3 * missing).append(" \"").append(ascii).append('"');
        }
        out.println(sb);
        out.flush();
    }
}
