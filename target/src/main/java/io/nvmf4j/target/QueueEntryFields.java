package io.nvmf4j.target;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The SQE and CQE fields the I/O path touches for every command, read and written in place with layouts built once.
 * The protocol accessors ({@link SubmissionQueueEntry#cid()}, {@link CompletionQueueEntry#statusField()}, ...) build
 * a little-endian layout on each call, and the layout's var handle is looked up in a JDK cache keyed by it: about a
 * hundred bytes allocated per field access. Offsets are those of NVMe Base 2.0, Figure 88 (common command format)
 * and Figure 90 (common completion queue entry).
 */
public final class QueueEntryFields {

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private QueueEntryFields() {
    }

    /** CID (CDW0 bits 31:16). */
    public static int cid(SubmissionQueueEntry sqe) {
        return Short.toUnsignedInt(sqe.segment().get(U16, SubmissionQueueEntry.OFFSET_CID));
    }

    /** NSID as an unsigned 32-bit value. */
    public static long nsid(SubmissionQueueEntry sqe) {
        return Integer.toUnsignedLong(sqe.segment().get(U32, SubmissionQueueEntry.OFFSET_NSID));
    }

    /** Command dword {@code n} (10..15). */
    public static int cdw(SubmissionQueueEntry sqe, int n) {
        return sqe.segment().get(U32, n * 4L);
    }

    /** The 15-bit status field (the word at offset 14 without the phase tag). */
    public static int statusField(CompletionQueueEntry cqe) {
        return Short.toUnsignedInt(cqe.segment().get(U16, CompletionQueueEntry.OFFSET_STATUS)) >>> 1;
    }

    /**
     * Fills SQHD, SQID, CID and the status field (phase tag 0: NVMe-oF carries no phase, NVMe-oF 1.1, 2.2) of a
     * CQE whose DW0/DW1 the command already set.
     */
    public static void complete(CompletionQueueEntry cqe, int sqHead, int sqId, int cid, int statusField) {
        MemorySegment s = cqe.segment();
        s.set(U16, CompletionQueueEntry.OFFSET_SQHD, (short) sqHead);
        s.set(U16, CompletionQueueEntry.OFFSET_SQID, (short) sqId);
        s.set(U16, CompletionQueueEntry.OFFSET_CID, (short) cid);
        s.set(U16, CompletionQueueEntry.OFFSET_STATUS, (short) ((statusField & 0x7FFF) << 1));
    }
}
