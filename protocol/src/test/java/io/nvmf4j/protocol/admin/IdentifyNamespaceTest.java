package io.nvmf4j.protocol.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** Offsets of Linux {@code struct nvme_id_ns} / SPDK {@code struct spdk_nvme_ns_data}, written as literals. */
class IdentifyNamespaceTest {

    private static final byte[] NGUID = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    private static final byte[] EUI64 = {0x00, 0x25, 0x38, 0x01, 0x02, 0x03, 0x04, 0x05};

    /** A 1 GiB namespace of 4096-byte blocks, formats 0 (512 B) and 1 (4 KiB), format 1 in use. */
    private static byte[] vector() {
        byte[] b = new byte[4096];
        Bytes.le(b, 0, 262_144, 8);   // nsze
        Bytes.le(b, 8, 262_144, 8);   // ncap
        Bytes.le(b, 16, 1000, 8);     // nuse
        b[24] = 0x01;                 // nsfeat: thin
        b[25] = 1;                    // nlbaf: 2 formats
        b[26] = 1;                    // flbas: format 1
        b[30] = 1;                    // nmic: shared
        b[33] = 0x09;                 // dlfeat: read zeroes, write zeroes may deallocate
        System.arraycopy(NGUID, 0, b, 104, 16);
        System.arraycopy(EUI64, 0, b, 120, 8);
        b[128 + 2] = 9;               // lbaf[0].ds = 512
        b[132 + 2] = 12;              // lbaf[1].ds = 4096
        return b;
    }

    @Test
    void sizeIs4096Bytes() {
        assertEquals(4096, IdentifyNamespace.SIZE);
        assertEquals(4, LbaFormat.SIZE);
    }

    @Test
    void encodedNamespaceHasTheLinuxLayout() {
        IdentifyNamespace ns = IdentifyNamespace.allocate().nsze(262_144).ncap(262_144).nuse(1000).nsfeat(1)
                .nlbaf(1).formattedLbaIndex(1).nmic(1).dlfeat(0x09).nguid(NGUID).eui64(EUI64)
                .lbaFormat(0, LbaFormat.ofBlockSize(512)).lbaFormat(1, LbaFormat.ofBlockSize(4096));
        assertArrayEquals(vector(), ns.segment().toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void decodedNamespaceReportsItsBlockSize() {
        IdentifyNamespace ns = IdentifyNamespace.wrap(MemorySegment.ofArray(vector())).validate();
        assertEquals(262_144, ns.nsze());
        assertEquals(1000, ns.nuse());
        assertEquals(4096, ns.blockSize());
        assertArrayEquals(NGUID, ns.nguid());
        assertArrayEquals(EUI64, ns.eui64());
        assertEquals(new LbaFormat(0, 9, 0), ns.lbaFormat(0));
    }

    @Test
    void formatIndexAbove15UsesFlbasBits6To5OnlyWhenNlbafExceeds16() {
        byte[] b = vector();
        b[25] = 20;                         // 21 formats
        b[26] = (byte) (0x04 | 0x1 << 5);   // index 0x14 = 20
        b[128 + 20 * 4 + 2] = 13;           // lbaf[20] = 8 KiB
        IdentifyNamespace ns = IdentifyNamespace.wrap(MemorySegment.ofArray(b));
        assertEquals(20, ns.formattedLbaIndex());
        assertEquals(8192, ns.blockSize());

        IdentifyNamespace built = IdentifyNamespace.allocate().nlbaf(20).flbas(IdentifyNamespace.FLBAS_EXTENDED)
                .formattedLbaIndex(20);
        assertEquals(0x10 | 0x04 | 0x20, built.flbas());
    }

    @Test
    void nlbafBeyondTheSixtyFourSlotsIsRejected() {
        byte[] b = vector();
        b[25] = 64;
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> IdentifyNamespace.wrap(MemorySegment.ofArray(b)).validate());
        assertTrue(e.getMessage().contains("NLBAF 64"), e.getMessage());
    }

    @Test
    void flbasSelectingAnUndeclaredFormatIsRejected() {
        byte[] b = vector();
        b[26] = 2; // format 2, but NLBAF = 1
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> IdentifyNamespace.wrap(MemorySegment.ofArray(b)).blockSize());
        assertTrue(e.getMessage().contains("FLBAS 02h selects LBA format 2"), e.getMessage());
    }

    @Test
    void lbadsBelow512BytesIsRejected() {
        byte[] b = vector();
        b[132 + 2] = 8;
        assertThrows(MalformedStructureException.class, () -> IdentifyNamespace.wrap(MemorySegment.ofArray(b)).validate());
        assertThrows(IllegalArgumentException.class, () -> LbaFormat.ofBlockSize(256));
    }

    @Test
    void capacityAboveSizeIsRejectedAndShortBufferIsAPreciseError() {
        byte[] b = vector();
        Bytes.le(b, 8, 262_145, 8);
        assertThrows(MalformedStructureException.class, () -> IdentifyNamespace.wrap(MemorySegment.ofArray(b)).validate());
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> IdentifyNamespace.wrap(MemorySegment.ofArray(new byte[100])));
        assertTrue(e.getMessage().contains("4096"), e.getMessage());
    }
}
