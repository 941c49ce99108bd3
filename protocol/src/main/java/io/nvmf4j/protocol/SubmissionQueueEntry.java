package io.nvmf4j.protocol;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;

/**
 * The 64-byte NVMe submission queue entry (NVMe Base 2.0, 4.2 "Submission Queue Entry"), as carried at the
 * start of every NVMe-oF command capsule. A view over a {@link MemorySegment}: the same object serves a heap
 * buffer in a test and a registered receive buffer on the data path. All multi-byte fields are little-endian.
 *
 * <p>Linux: {@code struct nvme_common_command} in {@code include/linux/nvme.h}; SPDK: {@code struct spdk_nvme_cmd}.
 */
public final class SubmissionQueueEntry {

    /** Size of a submission queue entry in bytes. */
    public static final int SIZE = 64;

    public static final int OFFSET_OPCODE = 0;
    /** CDW0 bits 15:08: FUSE (bits 1:0) and PSDT (bits 7:6). */
    public static final int OFFSET_FLAGS = 1;
    public static final int OFFSET_CID = 2;
    /** Namespace identifier; in a fabrics command byte 4 is FCTYPE instead. */
    public static final int OFFSET_NSID = 4;
    public static final int OFFSET_CDW2 = 8;
    public static final int OFFSET_CDW3 = 12;
    public static final int OFFSET_MPTR = 16;
    /** Data pointer: SGL1, 16 bytes, when PSDT selects SGLs (always for NVMe-oF). */
    public static final int OFFSET_DPTR = 24;
    public static final int DPTR_LENGTH = 16;
    public static final int OFFSET_CDW10 = 40;

    /** PSDT value 01b: SGLs, metadata pointer is an address (NVMe-oF requires SGLs: NVMe-oF 1.1, 2.1). */
    public static final int PSDT_SGL_MPTR_CONTIGUOUS = 1;
    /** PSDT value 10b: SGLs, metadata pointer is an SGL segment. */
    public static final int PSDT_SGL_MPTR_SGL = 2;


    private final MemorySegment segment;

    private SubmissionQueueEntry(MemorySegment segment) {
        this.segment = segment;
    }

    /** A view over the first 64 bytes of {@code segment}; fails with a message if it is shorter. */
    public static SubmissionQueueEntry wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException("submission queue entry needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        return new SubmissionQueueEntry(segment.asSlice(0, SIZE));
    }

    /** A zeroed entry on the heap. */
    public static SubmissionQueueEntry allocate() {
        return new SubmissionQueueEntry(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Zeroes all 64 bytes, for reuse of the same entry. */
    public SubmissionQueueEntry clear() {
        segment.fill((byte) 0);
        return this;
    }

    public int opcode() {
        return Byte.toUnsignedInt(segment.get(JAVA_BYTE, OFFSET_OPCODE));
    }

    public SubmissionQueueEntry opcode(int opcode) {
        segment.set(JAVA_BYTE, OFFSET_OPCODE, (byte) opcode);
        return this;
    }

    public int flags() {
        return Byte.toUnsignedInt(segment.get(JAVA_BYTE, OFFSET_FLAGS));
    }

    public SubmissionQueueEntry flags(int flags) {
        segment.set(JAVA_BYTE, OFFSET_FLAGS, (byte) flags);
        return this;
    }

    /** PRP or SGL for Data Transfer (CDW0 bits 15:14). */
    public int psdt() {
        return (flags() >>> 6) & 0x3;
    }

    public SubmissionQueueEntry psdt(int psdt) {
        return flags((flags() & 0x3F) | ((psdt & 0x3) << 6));
    }

    /** Fused operation (CDW0 bits 9:8). */
    public int fuse() {
        return flags() & 0x3;
    }

    /** Command identifier, unique among the outstanding commands of one submission queue. */
    public int cid() {
        return Short.toUnsignedInt(segment.get(Wire.LE_U16, OFFSET_CID));
    }

    public SubmissionQueueEntry cid(int cid) {
        segment.set(Wire.LE_U16, OFFSET_CID, (short) cid);
        return this;
    }

    /** Namespace identifier as an unsigned 32-bit value held in a long. */
    public long nsid() {
        return Integer.toUnsignedLong(segment.get(Wire.LE_U32, OFFSET_NSID));
    }

    public SubmissionQueueEntry nsid(long nsid) {
        segment.set(Wire.LE_U32, OFFSET_NSID, (int) nsid);
        return this;
    }

    public long mptr() {
        return segment.get(Wire.LE_U64, OFFSET_MPTR);
    }

    /** The 16-byte data pointer (SGL1) as a slice of this entry. */
    public MemorySegment dptr() {
        return segment.asSlice(OFFSET_DPTR, DPTR_LENGTH);
    }

    /** Command dword {@code n} (0..15) as a raw 32-bit value. */
    public int cdw(int n) {
        checkDword(n);
        return segment.get(Wire.LE_U32, n * 4L);
    }

    public SubmissionQueueEntry cdw(int n, int value) {
        checkDword(n);
        segment.set(Wire.LE_U32, n * 4L, value);
        return this;
    }

    public int cdw10() { return cdw(10); }
    public int cdw11() { return cdw(11); }
    public int cdw12() { return cdw(12); }
    public int cdw13() { return cdw(13); }
    public int cdw14() { return cdw(14); }
    public int cdw15() { return cdw(15); }

    /** Little-endian 64-bit value at a byte offset (e.g. SLBA in CDW10-11). */
    public long getLong(int offset) {
        return segment.get(Wire.LE_U64, offset);
    }

    public SubmissionQueueEntry setLong(int offset, long value) {
        segment.set(Wire.LE_U64, offset, value);
        return this;
    }

    private static void checkDword(int n) {
        if (n < 0 || n > 15) {
            throw new IllegalArgumentException("command dword " + n + " outside 0..15");
        }
    }

    @Override
    public String toString() {
        return String.format("SQE[opc=%02xh cid=%d nsid=%d psdt=%d cdw10=%08x cdw11=%08x cdw12=%08x]",
                opcode(), cid(), nsid(), psdt(), cdw10(), cdw11(), cdw12());
    }
}
