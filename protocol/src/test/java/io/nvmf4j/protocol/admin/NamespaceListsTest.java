package io.nvmf4j.protocol.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NamespaceListsTest {

    @Test
    void activeNamespaceListIsLittleEndianU32sZeroTerminated() {
        byte[] expected = new byte[4096];
        Bytes.le(expected, 0, 1, 4);
        Bytes.le(expected, 4, 2, 4);
        Bytes.le(expected, 8, 0x0100_0000L, 4);
        MemorySegment seg = MemorySegment.ofArray(new byte[4096]);
        seg.fill((byte) 0x5A); // stale data must be cleared
        ActiveNamespaceList.encode(seg, List.of(1L, 2L, 0x0100_0000L));
        assertArrayEquals(expected, seg.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(List.of(1L, 2L, 0x0100_0000L), ActiveNamespaceList.decode(MemorySegment.ofArray(expected)));
    }

    @Test
    void activeNamespaceListRejectsDisorderDataAfterTerminatorAndShortBuffers() {
        byte[] b = new byte[4096];
        Bytes.le(b, 0, 5, 4);
        Bytes.le(b, 4, 3, 4);
        assertThrows(MalformedStructureException.class, () -> ActiveNamespaceList.decode(MemorySegment.ofArray(b)));
        byte[] c = new byte[4096];
        Bytes.le(c, 0, 1, 4);
        Bytes.le(c, 12, 9, 4);
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> ActiveNamespaceList.decode(MemorySegment.ofArray(c)));
        assertTrue(e.getMessage().contains("entry 3"), e.getMessage());
        assertThrows(MalformedStructureException.class, () -> ActiveNamespaceList.decode(MemorySegment.ofArray(new byte[4092])));
        byte[] full = new byte[4096];
        for (int i = 0; i < 1024; i++) {
            Bytes.le(full, i * 4, i + 1, 4);
        }
        assertEquals(1024, ActiveNamespaceList.decode(MemorySegment.ofArray(full)).size());
    }

    @Test
    void descriptorListHasFourByteHeadersBackToBackAndEndsWithNidlZero() {
        UUID uuid = UUID.fromString("00112233-4455-6677-8899-aabbccddeeff");
        byte[] eui = {8, 7, 6, 5, 4, 3, 2, 1};
        byte[] expected = new byte[4096];
        expected[0] = 1;   // NIDT EUI64
        expected[1] = 8;   // NIDL
        System.arraycopy(eui, 0, expected, 4, 8);
        expected[12] = 3;  // NIDT UUID
        expected[13] = 16;
        for (int i = 0; i < 16; i++) {
            expected[16 + i] = (byte) (0x11 * i);
        }
        expected[32] = 4;  // NIDT CSI
        expected[33] = 1;
        expected[36] = 0;  // CSI NVM
        List<NamespaceDescriptor> list = List.of(NamespaceDescriptor.eui64(eui), NamespaceDescriptor.uuid(uuid),
                NamespaceDescriptor.csi(0));
        MemorySegment seg = MemorySegment.ofArray(new byte[4096]);
        NamespaceDescriptorList.encode(seg, list);
        assertArrayEquals(expected, seg.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(list, NamespaceDescriptorList.decode(MemorySegment.ofArray(expected)));
    }

    @Test
    void descriptorWithWrongLengthRepeatedTypeOrReservedTypeIsRejected() {
        byte[] b = new byte[4096];
        b[0] = 2;  // NGUID
        b[1] = 8;  // but NGUID is 16 bytes
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> NamespaceDescriptorList.decode(MemorySegment.ofArray(b)));
        assertTrue(e.getMessage().contains("requires NIDL 16"), e.getMessage());

        // each type may appear once (so a well-formed list never nears 4096 bytes); a repeat is an error
        byte[] c = new byte[4096];
        c[0] = 4;
        c[1] = 1;
        c[5] = 4;
        c[6] = 1;
        MalformedStructureException dup = assertThrows(MalformedStructureException.class,
                () -> NamespaceDescriptorList.decode(MemorySegment.ofArray(c)));
        assertTrue(dup.getMessage().contains("appears twice (second at offset 5)"), dup.getMessage());

        byte[] d = new byte[4096];
        d[0] = 9;
        d[1] = 4; // reserved NIDT
        assertThrows(MalformedStructureException.class, () -> NamespaceDescriptorList.decode(MemorySegment.ofArray(d)));
        assertThrows(MalformedStructureException.class, () -> NamespaceDescriptorList.decode(MemorySegment.ofArray(new byte[64])));
    }
}
