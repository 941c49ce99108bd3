package io.nvmf4j.protocol.admin;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The Namespace Identification Descriptor list (CNS 03h; NVMe Base 2.0, 5.17.2.3): 4096 bytes of back-to-back
 * {@link NamespaceDescriptor}s, ended by a descriptor whose NIDL is 0 (or by the end of the buffer). Linux builds it
 * in {@code nvmet_execute_identify_desclist()} and walks it in {@code nvme_identify_ns_descs()}.
 */
public final class NamespaceDescriptorList {

    public static final int SIZE = 4096;

    private NamespaceDescriptorList() {
    }

    /**
     * Walks the list. Fails when a descriptor runs past the 4096 bytes, when its NIDL does not match its NIDT, or
     * when a type repeats (each type appears at most once).
     */
    public static List<NamespaceDescriptor> decode(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException(
                    "namespace identification descriptor list needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        List<NamespaceDescriptor> out = new ArrayList<>();
        int seenTypes = 0;
        long pos = 0;
        while (pos + NamespaceDescriptor.HEADER_SIZE <= SIZE) {
            int nidt = Byte.toUnsignedInt(segment.get(JAVA_BYTE, pos + NamespaceDescriptor.OFFSET_NIDT));
            int nidl = Byte.toUnsignedInt(segment.get(JAVA_BYTE, pos + NamespaceDescriptor.OFFSET_NIDL));
            if (nidl == 0) {
                break;
            }
            int expected = NamespaceDescriptor.lengthFor(nidt);
            if (expected < 0) {
                throw new MalformedStructureException(String.format(
                        "namespace identification descriptor at offset %d has reserved NIDT %02xh", pos, nidt));
            }
            if (nidl != expected) {
                throw new MalformedStructureException(String.format(
                        "namespace identification descriptor at offset %d: NIDT %d requires NIDL %d, got %d",
                        pos, nidt, expected, nidl));
            }
            long idStart = pos + NamespaceDescriptor.HEADER_SIZE;
            if (idStart + nidl > SIZE) {
                throw new MalformedStructureException("namespace identification descriptor at offset " + pos
                        + " runs past the end of the 4096-byte list");
            }
            if ((seenTypes & (1 << nidt)) != 0) {
                throw new MalformedStructureException("namespace identification descriptor type " + nidt
                        + " appears twice (second at offset " + pos + ")");
            }
            seenTypes |= 1 << nidt;
            out.add(new NamespaceDescriptor(nidt, segment.asSlice(idStart, nidl).toArray(JAVA_BYTE)));
            pos = idStart + nidl;
        }
        return List.copyOf(out);
    }

    /** Writes the descriptors back to back and zeroes the rest (which terminates the list with NIDL 0). */
    public static void encode(MemorySegment segment, List<NamespaceDescriptor> descriptors) {
        if (segment.byteSize() < SIZE) {
            throw new IllegalArgumentException("descriptor list needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        int total = descriptors.stream().mapToInt(NamespaceDescriptor::encodedLength).sum();
        if (total > SIZE) {
            throw new IllegalArgumentException("descriptors need " + total + " bytes, more than " + SIZE);
        }
        segment.asSlice(0, SIZE).fill((byte) 0);
        long pos = 0;
        for (NamespaceDescriptor d : descriptors) {
            byte[] id = d.id();
            segment.set(JAVA_BYTE, pos + NamespaceDescriptor.OFFSET_NIDT, (byte) d.type());
            segment.set(JAVA_BYTE, pos + NamespaceDescriptor.OFFSET_NIDL, (byte) id.length);
            MemorySegment.copy(id, 0, segment, JAVA_BYTE, pos + NamespaceDescriptor.HEADER_SIZE, id.length);
            pos += d.encodedLength();
        }
    }
}
