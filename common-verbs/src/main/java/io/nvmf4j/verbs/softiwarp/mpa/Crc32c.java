package io.nvmf4j.verbs.softiwarp.mpa;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The MPA FPDU CRC (RFC 5044 section 4.4: CRC32c as in iSCSI, RFC 3720 appendix B.4). The 32-bit value is put on
 * the wire least significant byte first, as iSCSI and Linux ({@code crypto_shash_final} of crc32c, used by
 * siw_get_trailer "directly in NBO") do: the RFC 3720 vector for 32 zero bytes is the value 0x8a9136aa, sent as
 * {@code aa 36 91 8a}.
 */
public final class Crc32c {
    private final CRC32C crc = new CRC32C();

    public void reset() {
        crc.reset();
    }

    /** Adds the remaining bytes of {@code buffer} without moving its position. */
    public void update(ByteBuffer buffer, int offset, int length) {
        int oldPosition = buffer.position();
        int oldLimit = buffer.limit();
        buffer.limit(offset + length).position(offset);
        crc.update(buffer);
        buffer.limit(oldLimit).position(oldPosition);
    }

    public void update(byte[] bytes, int offset, int length) {
        crc.update(bytes, offset, length);
    }

    /** The CRC value (as a number; {@link #wireValue()} is the same in wire byte order as a big-endian int). */
    public int value() {
        return (int) crc.getValue();
    }

    /** The CRC as a big-endian int whose bytes are the wire bytes (= byte-reversed value). */
    public int wireValue() {
        return Integer.reverseBytes(value());
    }
}
