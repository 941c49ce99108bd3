package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * HDGST and DDGST: CRC32C (Castagnoli, as iSCSI's, RFC 3720 B.4) over the PDU header or the PDU data, stored
 * little-endian after the header or the data (NVMe/TCP 1.0a, "PDU digests"; Linux {@code nvme_tcp_hdgst()} and
 * {@code nvme_tcp_ddgst_final()}). The JDK's {@link CRC32C} is the same function, with the CPU's CRC32 instruction
 * behind it.
 *
 * <p>Called per PDU on a poll thread: over native memory and byte arrays the checksum object and the buffer view
 * do not outlive the call, so the JIT's escape analysis removes them once the method is compiled (no allocation in
 * steady state). Only a segment over another kind of array (a {@code long[]}) is copied to bytes first.
 */
public final class PduDigest {
    private PduDigest() {
    }

    /** The digest of {@code length} bytes of {@code s} at {@code offset}. */
    public static int compute(MemorySegment s, long offset, long length) {
        CRC32C crc = new CRC32C();
        MemorySegment part = s.asSlice(offset, length);
        java.nio.ByteBuffer view;
        try {
            view = part.asByteBuffer();
        } catch (UnsupportedOperationException notBytes) {
            view = java.nio.ByteBuffer.wrap(part.toArray(ValueLayout.JAVA_BYTE));
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
