package io.nvmf4j.protocol;


import java.lang.foreign.MemorySegment;

/**
 * The 16-byte NVMe completion queue entry (NVMe Base 2.0, 4.6 "Completion Queue Entry"), the whole of an
 * NVMe-oF response capsule over RDMA. DW0-1 are command specific (64-bit result for fabrics commands such as
 * Property Get), DW2 holds SQHD and SQID, DW3 holds CID, the phase tag (bit 16) and the status field (bits 31:17).
 *
 * <p>Linux: {@code struct nvme_completion}; SPDK: {@code struct spdk_nvme_cpl}.
 */
public final class CompletionQueueEntry {

    public static final int SIZE = 16;

    public static final int OFFSET_RESULT = 0;
    public static final int OFFSET_SQHD = 8;
    public static final int OFFSET_SQID = 10;
    public static final int OFFSET_CID = 12;
    /** Phase tag in bit 0, status field (SC, SCT, CRD, More, DNR) in bits 15:1. */
    public static final int OFFSET_STATUS = 14;


    private final MemorySegment segment;

    private CompletionQueueEntry(MemorySegment segment) {
        this.segment = segment;
    }

    public static CompletionQueueEntry wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException("completion queue entry needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        return new CompletionQueueEntry(segment.asSlice(0, SIZE));
    }

    public static CompletionQueueEntry allocate() {
        return new CompletionQueueEntry(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    public CompletionQueueEntry clear() {
        segment.fill((byte) 0);
        return this;
    }

    /** DW0 and DW1 as one little-endian 64-bit command-specific result. */
    public long result() {
        return segment.get(Wire.LE_U64, OFFSET_RESULT);
    }

    public CompletionQueueEntry result(long value) {
        segment.set(Wire.LE_U64, OFFSET_RESULT, value);
        return this;
    }

    /** DW0 alone. */
    public int dw0() {
        return segment.get(Wire.LE_U32, OFFSET_RESULT);
    }

    public CompletionQueueEntry dw0(int value) {
        segment.set(Wire.LE_U32, OFFSET_RESULT, value);
        return this;
    }

    public int sqHead() {
        return Short.toUnsignedInt(segment.get(Wire.LE_U16, OFFSET_SQHD));
    }

    public CompletionQueueEntry sqHead(int sqhd) {
        segment.set(Wire.LE_U16, OFFSET_SQHD, (short) sqhd);
        return this;
    }

    public int sqId() {
        return Short.toUnsignedInt(segment.get(Wire.LE_U16, OFFSET_SQID));
    }

    public CompletionQueueEntry sqId(int sqid) {
        segment.set(Wire.LE_U16, OFFSET_SQID, (short) sqid);
        return this;
    }

    public int cid() {
        return Short.toUnsignedInt(segment.get(Wire.LE_U16, OFFSET_CID));
    }

    public CompletionQueueEntry cid(int cid) {
        segment.set(Wire.LE_U16, OFFSET_CID, (short) cid);
        return this;
    }

    /** The raw 16-bit word at offset 14: phase tag in bit 0, status field above it. */
    public int statusWord() {
        return Short.toUnsignedInt(segment.get(Wire.LE_U16, OFFSET_STATUS));
    }

    public CompletionQueueEntry statusWord(int word) {
        segment.set(Wire.LE_U16, OFFSET_STATUS, (short) word);
        return this;
    }

    public boolean phase() {
        return (statusWord() & 1) != 0;
    }

    /** The 15-bit status field (statusWord without the phase tag): SC bits 7:0, SCT 10:8, CRD 12:11, M 13, DNR 14. */
    public int statusField() {
        return statusWord() >>> 1;
    }

    public CompletionQueueEntry statusField(int field) {
        return statusWord((statusWord() & 1) | ((field & 0x7FFF) << 1));
    }

    /** Sets or clears the phase tag, keeping the status field. */
    public CompletionQueueEntry phase(boolean phase) {
        return statusWord((statusWord() & ~1) | (phase ? 1 : 0));
    }

    /** The status field decoded (phase tag ignored). */
    public Status status() {
        return Status.fromField(statusField());
    }

    /** Writes the status field, keeping the phase tag. */
    public CompletionQueueEntry status(Status status) {
        return statusField(status.toField());
    }

    @Override
    public String toString() {
        return String.format("CQE[cid=%d sqid=%d sqhd=%d p=%d status=%04xh %s result=%016xh]",
                cid(), sqId(), sqHead(), statusWord() & 1, statusField(), status(), result());
    }
}
