package io.nvmf4j.initiator.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.protocol.tcp.PduDigest;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Data digested in pieces, the pieces' digests joined, has the digest of the whole: for any cut and length. */
class DigestCombineTest {

    private final PduDigest digest = new PduDigest();

    @Test
    void piecesJoinToTheDigestOfTheWhole() {
        Random random = new Random(42);
        for (int round = 0; round < 500; round++) {
            byte[] data = new byte[random.nextInt(70_000)];
            random.nextBytes(data);
            ByteBuffer b = ByteBuffer.allocateDirect(data.length).put(data).clear();
            int joined = 0;
            for (int at = 0; at < data.length; ) {
                int piece = Math.min(data.length - at, 1 + random.nextInt(random.nextBoolean() ? 16 : 20_000));
                joined = DigestCombine.combine(joined, digest.compute(b, at, piece), piece);
                at += piece;
            }
            assertEquals(whole(data), joined, data.length + " bytes");
        }
    }

    @Test
    void theEmptyPieceChangesNothing() {
        byte[] data = {1, 2, 3};
        int d = whole(data);
        assertEquals(d, DigestCombine.combine(d, 0, 0));
        assertEquals(d, DigestCombine.combine(0, d, data.length));
    }

    /** The reference: the JDK's CRC32C over all of it at once. */
    private static int whole(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }
}
