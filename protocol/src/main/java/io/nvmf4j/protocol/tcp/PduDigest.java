package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * HDGST and DDGST: CRC32C (Castagnoli, as iSCSI's, RFC 3720 B.4) over the PDU header or the PDU data, stored
 * little-endian after the header or the data (NVMe/TCP 1.0a, "PDU digests"; Linux {@code nvme_tcp_hdgst()} and
 * {@code nvme_tcp_ddgst_final()}). The JDK's {@link CRC32C} is the same function, with the CPU's CRC32 instruction
 * behind it.
 *
 * <p>The static methods take any segment, but cut a slice and a buffer view per call. A data path digests through
 * an instance ({@link #compute(ByteBuffer, int, int)}): one checksum object per connection, reset per PDU, over
 * the connection's own direct buffers, so a digested PDU allocates nothing. Not thread-safe: one owner thread.
 */
public final class PduDigest {
    private final CRC32C crc = new CRC32C();

    /** A digest for one connection's poll thread. */
    public PduDigest() {
    }

    /**
     * The digest of {@code length} bytes of {@code buffer} at {@code offset}; the buffer's position and limit are
     * as they were afterwards.
     */
    public int compute(ByteBuffer buffer, int offset, int length) {
        int position = buffer.position();
        int limit = buffer.limit();
        buffer.limit(offset + length).position(offset);
        crc.reset();
        crc.update(buffer);
        buffer.limit(limit).position(position);
        return (int) crc.getValue();
    }

    /** The digest of {@code length} bytes of {@code s} at {@code offset}. */
    public static int compute(MemorySegment s, long offset, long length) {
        CRC32C crc = new CRC32C();
        MemorySegment part = s.asSlice(offset, length);
        ByteBuffer view;
        try {
            view = part.asByteBuffer();
        } catch (UnsupportedOperationException notBytes) {
            view = ByteBuffer.wrap(part.toArray(ValueLayout.JAVA_BYTE));
        }
        crc.update(view);
        return (int) crc.getValue();
    }

    /** Writes the digest of the bytes before {@code at} (from {@code from}) at {@code at}. */
    public static void write(MemorySegment s, long from, long at) {
        Wire.u32(s, at, Integer.toUnsignedLong(compute(s, from, at - from)));
    }

    /** Whether the 4 bytes at {@code at} are the digest of the bytes from {@code from} to {@code at}. */
    public static boolean matches(MemorySegment s, long from, long at) {
        return (int) Wire.u32(s, at) == compute(s, from, at - from);
    }
}
