package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.softiwarp.mpa.Crc32c;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** RFC 3720 appendix B.4 CRC32c examples, in the byte order they appear on the wire (as MPA sends them). */
class Crc32cVectorTest {
    private static String wire(byte[] data) {
        Crc32c crc = new Crc32c();
        crc.update(data, 0, data.length);
        return String.format("%08x", crc.wireValue());
    }

    @Test
    void rfc3720Vectors() {
        byte[] zeros = new byte[32];
        byte[] ones = new byte[32];
        byte[] up = new byte[32];
        byte[] down = new byte[32];
        for (int i = 0; i < 32; i++) {
            ones[i] = (byte) 0xff;
            up[i] = (byte) i;
            down[i] = (byte) (31 - i);
        }
        assertEquals("aa36918a", wire(zeros));
        assertEquals("43aba862", wire(ones));
        assertEquals("4e79dd46", wire(up));
        assertEquals("5cdb3f11", wire(down));
        byte[] iscsiRead = Hex.bytes("01c00000 00000000 00000000 00000000 14000000 00000400 00000014 00000018"
                + " 28000000 00000000 02000000 00000000");
        assertEquals("563a96d9", wire(iscsiRead));
    }

    @Test
    void byteBufferUpdateCoversOnlyTheGivenRangeAndKeepsPosition() {
        ByteBuffer b = ByteBuffer.allocateDirect(40);
        b.position(3);
        Crc32c crc = new Crc32c();
        crc.update(b, 4, 32);
        assertEquals(3, b.position());
        assertEquals("aa36918a", String.format("%08x", crc.wireValue()));
    }
}
