package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * A 16-byte SGL descriptor (NVMe Base 2.0, 4.3.2). Bytes 14:0 are type
 * specific; byte 15 is the SGL Identifier: descriptor type in bits 7:4, subtype in bits 3:0.
 *
 * <pre>
 *  unkeyed (Linux struct nvme_sgl_desc)       keyed (Linux struct nvme_keyed_sgl_desc)
 *  0..7   address (or offset)                 0..7   address
 *  8..11  length (32 bit)                     8..10  length (24 bit)
 *  12..14 reserved                            11..14 key (32 bit)
 *  15     identifier                          15     identifier
 * </pre>
 */
public sealed interface SglDescriptor permits DataBlockDescriptor, BitBucketDescriptor, SegmentPointer,
        KeyedSglDescriptor, TransportSglDescriptor {

    int SIZE = 16;

    int OFFSET_ADDRESS = 0;
    int OFFSET_LENGTH = 8;
    /** Key of a keyed data block descriptor, bytes 14:11. */
    int OFFSET_KEY = 11;
    int OFFSET_IDENTIFIER = 15;

    // In-place reads of the descriptor at byte {@code at} of a segment (an SQE's SGL1 on the data path): the same
    // fields as parse() without a descriptor object per command.

    /** The SGL Identifier: type in bits 7:4, subtype in bits 3:0. */
    static int identifierAt(MemorySegment s, long at) {
        return Wire.u8(s, at + OFFSET_IDENTIFIER);
    }

    static long addressAt(MemorySegment s, long at) {
        return Wire.u64(s, at + OFFSET_ADDRESS);
    }

    /** A keyed data block's 24-bit length (bytes 10:8). */
    static int keyedLengthAt(MemorySegment s, long at) {
        return Wire.u24(s, at + OFFSET_LENGTH);
    }

    /** A keyed data block's key (bytes 14:11). */
    static int keyAt(MemorySegment s, long at) {
        return (int) Wire.u32(s, at + OFFSET_KEY);
    }

    /** An unkeyed descriptor's 32-bit length (bytes 11:8). */
    static long lengthAt(MemorySegment s, long at) {
        return Wire.u32(s, at + OFFSET_LENGTH);
    }

    /** Linux {@code NVME_SGL_FMT_DATA_DESC}. */
    int TYPE_DATA_BLOCK = 0x0;
    int TYPE_BIT_BUCKET = 0x1;
    /** Linux {@code NVME_SGL_FMT_SEG_DESC}. */
    int TYPE_SEGMENT = 0x2;
    /** Linux {@code NVME_SGL_FMT_LAST_SEG_DESC}. */
    int TYPE_LAST_SEGMENT = 0x3;
    /** Linux {@code NVME_KEY_SGL_FMT_DATA_DESC}. */
    int TYPE_KEYED_DATA_BLOCK = 0x4;
    /** Linux {@code NVME_TRANSPORT_SGL_DATA_DESC}. */
    int TYPE_TRANSPORT_DATA_BLOCK = 0x5;
    int TYPE_VENDOR_SPECIFIC = 0xF;

    /** Linux {@code NVME_SGL_FMT_ADDRESS}: the address field is a memory address. */
    int SUBTYPE_ADDRESS = 0x0;
    /** Linux {@code NVME_SGL_FMT_OFFSET}: the address field is an offset (NVMe-oF in-capsule data). */
    int SUBTYPE_OFFSET = 0x1;
    /** Linux {@code NVME_SGL_FMT_TRANSPORT_A}: transport specific (NVMe/TCP). */
    int SUBTYPE_TRANSPORT_SPECIFIC = 0xA;
    /**
     * Linux {@code NVME_SGL_FMT_INVALIDATE}: keyed data block whose key the target shall invalidate remotely with
     * its response (NVMe-oF RDMA transport binding, "Invalidate Key" subtype; Linux combines it with ADDRESS).
     */
    int SUBTYPE_INVALIDATE_KEY = 0xF;

    /** Descriptor type, bits 7:4 of byte 15. */
    int type();

    /** Descriptor subtype, bits 3:0 of byte 15. */
    int subtype();

    /** Byte 15 as encoded. */
    default int identifier() {
        return type() << 4 | subtype();
    }

    /** Writes all 16 bytes of the descriptor (reserved bytes as zero) into the start of {@code destination}. */
    void encode(MemorySegment destination);

    /**
     * Decodes the descriptor in the first 16 bytes of {@code source}. A source shorter than 16 bytes gives a
     * {@link io.nvmf4j.protocol.MalformedStructureException}; an undefined type or subtype gives an
     * {@link SglDescriptorException} naming byte 15.
     */
    static SglDescriptor decode(MemorySegment source) {
        MemorySegment s = Wire.require(source, SIZE, "SGL descriptor");
        int identifier = Wire.u8(s, OFFSET_IDENTIFIER);
        int type = identifier >>> 4;
        int subtype = identifier & 0xF;
        long address = Wire.u64(s, OFFSET_ADDRESS);
        return switch (type) {
            case TYPE_DATA_BLOCK -> {
                requireSubtype(identifier, subtype == SUBTYPE_ADDRESS || subtype == SUBTYPE_OFFSET,
                        "0h address or 1h offset");
                yield new DataBlockDescriptor(address, Wire.u32(s, OFFSET_LENGTH), subtype == SUBTYPE_OFFSET);
            }
            case TYPE_BIT_BUCKET -> {
                requireSubtype(identifier, subtype == SUBTYPE_ADDRESS, "0h");
                yield new BitBucketDescriptor(Wire.u32(s, OFFSET_LENGTH));
            }
            case TYPE_SEGMENT, TYPE_LAST_SEGMENT -> {
                requireSubtype(identifier, subtype == SUBTYPE_ADDRESS || subtype == SUBTYPE_OFFSET,
                        "0h address or 1h offset");
                long length = Wire.u32(s, OFFSET_LENGTH);
                if (length == 0 || length % SIZE != 0) {
                    throw new SglDescriptorException(SglDescriptorException.Problem.SEGMENT_LENGTH, String.format(
                            "SGL %s descriptor bytes 11:8: length %d is not a non-zero multiple of %d",
                            type == TYPE_SEGMENT ? "segment" : "last segment", length, SIZE), OFFSET_LENGTH);
                }
                boolean offset = subtype == SUBTYPE_OFFSET;
                yield type == TYPE_SEGMENT
                        ? new SegmentDescriptor(address, length, offset)
                        : new LastSegmentDescriptor(address, length, offset);
            }
            case TYPE_KEYED_DATA_BLOCK -> {
                requireSubtype(identifier, subtype == SUBTYPE_ADDRESS || subtype == SUBTYPE_INVALIDATE_KEY,
                        "0h address or Fh invalidate key");
                yield new KeyedSglDescriptor(address, Wire.u24(s, OFFSET_LENGTH), (int) Wire.u32(s, OFFSET_KEY),
                        subtype == SUBTYPE_INVALIDATE_KEY);
            }
            case TYPE_TRANSPORT_DATA_BLOCK -> {
                requireSubtype(identifier, subtype == SUBTYPE_TRANSPORT_SPECIFIC, "Ah transport specific");
                yield new TransportSglDescriptor(address, Wire.u32(s, OFFSET_LENGTH));
            }
            default -> throw new SglDescriptorException(SglDescriptorException.Problem.TYPE, String.format(
                    "SGL descriptor byte 15 (identifier %02xh): type %Xh is %s; defined are 0h data block, "
                            + "1h bit bucket, 2h segment, 3h last segment, 4h keyed data block, 5h transport data block",
                    identifier, type, type == TYPE_VENDOR_SPECIFIC ? "vendor specific and not supported" : "reserved"),
                    OFFSET_IDENTIFIER);
        };
    }

    /**
     * Decodes the descriptors of an SGL segment of {@code length} bytes at the start of {@code segment}, e.g. the
     * in-capsule segment a Last Segment descriptor with the offset subtype points to (SPDK
     * {@code nvmf_rdma_request_parse_sgl()} accepts such lists of keyed descriptors). Errors name the descriptor's
     * index and report the byte offset within the whole segment.
     */
    static java.util.List<SglDescriptor> decodeSegment(MemorySegment segment, long length) {
        if (length <= 0 || length % SIZE != 0) {
            throw new SglDescriptorException(SglDescriptorException.Problem.SEGMENT_LENGTH,
                    "SGL segment length " + length + " is not a non-zero multiple of " + SIZE, 0);
        }
        MemorySegment s = Wire.require(segment, length, "SGL segment of " + length / SIZE + " descriptors");
        java.util.List<SglDescriptor> list = new java.util.ArrayList<>((int) (length / SIZE));
        for (int i = 0; i < length / SIZE; i++) {
            try {
                list.add(decode(s.asSlice((long) i * SIZE, SIZE)));
            } catch (SglDescriptorException e) {
                throw new SglDescriptorException(e.problem(), "SGL segment descriptor " + i + ": " + e.getMessage(),
                        i * SIZE + e.fieldOffset().orElse(0));
            }
        }
        return java.util.List.copyOf(list);
    }

    private static void requireSubtype(int identifier, boolean valid, String allowed) {
        if (!valid) {
            throw new SglDescriptorException(SglDescriptorException.Problem.SUBTYPE, String.format(
                    "SGL descriptor byte 15 (identifier %02xh): subtype %Xh is not defined for type %Xh (%s); allowed: %s",
                    identifier, identifier & 0xF, identifier >>> 4, typeName(identifier >>> 4), allowed),
                    OFFSET_IDENTIFIER);
        }
    }

    /** The spec's name of a descriptor type, for messages. */
    static String typeName(int type) {
        return switch (type) {
            case TYPE_DATA_BLOCK -> "data block";
            case TYPE_BIT_BUCKET -> "bit bucket";
            case TYPE_SEGMENT -> "segment";
            case TYPE_LAST_SEGMENT -> "last segment";
            case TYPE_KEYED_DATA_BLOCK -> "keyed data block";
            case TYPE_TRANSPORT_DATA_BLOCK -> "transport data block";
            case TYPE_VENDOR_SPECIFIC -> "vendor specific";
            default -> "reserved";
        };
    }

    /** Writes the common unkeyed layout: address, 32-bit length, zero reserved bytes, identifier. */
    static void encodeUnkeyed(MemorySegment destination, long address, long length, int identifier) {
        MemorySegment d = Wire.requireDestination(destination, SIZE, "SGL descriptor");
        Wire.u64(d, OFFSET_ADDRESS, address);
        Wire.u32(d, OFFSET_LENGTH, length);
        Wire.u8(d, 12, 0);
        Wire.u8(d, 13, 0);
        Wire.u8(d, 14, 0);
        Wire.u8(d, OFFSET_IDENTIFIER, identifier);
    }
}
