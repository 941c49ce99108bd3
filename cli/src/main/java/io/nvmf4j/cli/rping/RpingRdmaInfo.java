package io.nvmf4j.cli.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code struct rping_rdma_info} of rdma-core's rping.c: the message of every rping Send that
 * advertises a buffer. Sixteen bytes, all big-endian ({@code htobe64}/{@code htobe32} in
 * {@code rping_format_send()}):
 *
 * <pre>
 *   offset 0  __be64 buf    remote-visible address of the buffer (the tagged offset)
 *   offset 8  __be32 rkey   its STag
 *   offset 12 __be32 size   its length in bytes
 * </pre>
 *
 * The server's go-ahead Sends carry the same sixteen bytes (rping never fills them in; only the
 * length is checked by the receiver).
 */
public record RpingRdmaInfo(long address, int rkey, int size) {

    /** {@code sizeof(struct rping_rdma_info)}. */
    public static final int BYTES = 16;
    static final long BUF_OFFSET = 0;
    static final long RKEY_OFFSET = 8;
    static final long SIZE_OFFSET = 12;

    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Writes this advertisement into the first {@link #BYTES} bytes of {@code out}. */
    public void encode(MemorySegment out) {
        encode(out, address, rkey, size);
    }

    /** Writes an advertisement without creating a record (the per-ping path). */
    public static void encode(MemorySegment out, long address, int rkey, int size) {
        if (out.byteSize() < BYTES) {
            throw new IllegalArgumentException("rping_rdma_info needs " + BYTES + " bytes, segment has " + out.byteSize());
        }
        out.set(BE64, BUF_OFFSET, address);
        out.set(BE32, RKEY_OFFSET, rkey);
        out.set(BE32, SIZE_OFFSET, size);
    }

    /**
     * Reads an advertisement that arrived in a Receive of {@code receivedLength} bytes. Like
     * {@code server_recv()}, anything but exactly sixteen bytes is refused.
     */
    public static RpingRdmaInfo decode(MemorySegment in, int receivedLength) throws RpingException {
        if (receivedLength != BYTES || in.byteSize() < BYTES) {
            throw new RpingException("Received bogus data, size " + receivedLength + " (an rping_rdma_info is "
                    + BYTES + " bytes)");
        }
        return new RpingRdmaInfo(in.get(BE64, BUF_OFFSET), in.get(BE32, RKEY_OFFSET), in.get(BE32, SIZE_OFFSET));
    }

    @Override
    public String toString() {
        return "rping_rdma_info[buf=0x" + Long.toHexString(address) + ", rkey=0x" + Integer.toHexString(rkey)
                + ", size=" + Integer.toUnsignedString(size) + "]";
    }
}
