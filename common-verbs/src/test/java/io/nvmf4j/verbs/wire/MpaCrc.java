package io.nvmf4j.verbs.wire;

import java.util.zip.CRC32C;

/**
 * The MPA CRC trailer (RFC 5044, 4.4: CRC32c as in iSCSI, RFC 3385). On the wire the four bytes are the
 * little-endian form of the conventional CRC32C value, exactly as Linux siw writes them
 * ({@code siw_crc_final()}: {@code put_unaligned_le32(~crc, out)}) and as RFC 3720 B.4 lists its examples
 * (32 zero bytes give {@code aa 36 91 8a}).
 */
final class MpaCrc {
    private MpaCrc() {
    }

    /** The four trailer bytes for {@code data[offset, offset+length)}. */
    static byte[] trailer(byte[] data, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        long value = crc.getValue();
        return new byte[] {(byte) value, (byte) (value >>> 8), (byte) (value >>> 16), (byte) (value >>> 24)};
    }
}
