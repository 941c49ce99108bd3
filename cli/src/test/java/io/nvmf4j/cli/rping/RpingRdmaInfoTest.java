package io.nvmf4j.cli.rping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class RpingRdmaInfoTest {

    // struct rping_rdma_info { __be64 buf; __be32 rkey; __be32 size; } as rping_format_send() fills it
    // for buf 0x00007f1234567800, rkey 0x00a1b2c3, size 4096: every field big-endian.
    private static final byte[] WIRE = HexFormat.of().parseHex("00007f1234567800" + "00a1b2c3" + "00001000");

    @Test
    void advertisementIsSixteenBigEndianBytesAsRpingFormatsThem() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(RpingRdmaInfo.BYTES);
            new RpingRdmaInfo(0x00007f1234567800L, 0x00a1b2c3, 4096).encode(out);
            assertArrayEquals(WIRE, out.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void advertisementFromTheWireDecodesToAddressKeyAndSize() throws RpingException {
        RpingRdmaInfo info = RpingRdmaInfo.decode(MemorySegment.ofArray(WIRE.clone()), 16);
        assertEquals(0x00007f1234567800L, info.address());
        assertEquals(0x00a1b2c3, info.rkey());
        assertEquals(4096, info.size());
    }

    @Test
    void receiveOfAnyOtherLengthIsBogusDataAsInServerRecv() {
        byte[] seventeen = new byte[17];
        System.arraycopy(WIRE, 0, seventeen, 0, 16);
        for (int length : new int[] {0, 15, 17}) {
            RpingException e = assertThrows(RpingException.class,
                    () -> RpingRdmaInfo.decode(MemorySegment.ofArray(seventeen), length));
            assertTrue(e.getMessage().startsWith("Received bogus data, size " + length), e.getMessage());
        }
    }

    @Test
    void shortBufferIsRefusedWithoutIndexOutOfBounds() {
        assertThrows(RpingException.class, () -> RpingRdmaInfo.decode(MemorySegment.ofArray(new byte[8]), 16));
    }
}
