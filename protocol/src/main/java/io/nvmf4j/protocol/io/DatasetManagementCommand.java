package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Dataset Management (opcode 09h; NVM Command Set 1.0, 3.2.3): CDW10 bits 7:0 NR, the 0's based number of 16-byte
 * {@link DsmRange}s in the data buffer (1..256); CDW11 attributes IDR bit 0, IDW bit 1, AD (deallocate) bit 2. Linux
 * sends discard as DSM with AD set ({@code nvme_setup_discard()}); {@code struct nvme_dsm_cmd}: nr __le32 at 40,
 * attributes __le32 at 44.
 */
public final class DatasetManagementCommand {

    public static final int OFFSET_NR = 40;
    public static final int OFFSET_ATTRIBUTES = 44;
    public static final int MAX_RANGES = 256;

    public static final int ATTR_IDR = 1;
    public static final int ATTR_IDW = 1 << 1;
    public static final int ATTR_AD = 1 << 2;

    private final SubmissionQueueEntry sqe;

    private DatasetManagementCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static DatasetManagementCommand wrap(SubmissionQueueEntry sqe) {
        return new DatasetManagementCommand(LbaRangeCommand.requireOpcode(sqe, IoOpcode.DATASET_MANAGEMENT));
    }

    /** Clears {@code sqe} and writes a DSM for {@code rangeCount} ranges (1..256) with {@code attributes}. */
    public static DatasetManagementCommand create(SubmissionQueueEntry sqe, long nsid, int rangeCount, int attributes) {
        if (rangeCount < 1 || rangeCount > MAX_RANGES) {
            throw new IllegalArgumentException("DSM range count " + rangeCount + " outside 1..256");
        }
        sqe.clear();
        sqe.opcode(IoOpcode.DATASET_MANAGEMENT.code());
        sqe.nsid(nsid);
        sqe.cdw(10, rangeCount - 1);
        sqe.cdw(11, attributes);
        return new DatasetManagementCommand(sqe);
    }

    /** A deallocate (discard / TRIM) of {@code ranges}, written into {@code data}: what Linux sends for discard. */
    public static DatasetManagementCommand deallocate(SubmissionQueueEntry sqe, long nsid, List<DsmRange> ranges,
            MemorySegment data) {
        DatasetManagementCommand cmd = create(sqe, nsid, ranges.size(), ATTR_AD);
        cmd.encodeRanges(data, ranges);
        return cmd;
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    public long nsid() {
        return sqe.nsid();
    }

    /** NR as stored (0's based). */
    public int nr() {
        return sqe.cdw10() & 0xFF;
    }

    public int rangeCount() {
        return nr() + 1;
    }

    /** Bytes of range data the command transfers: (NR + 1) * 16. */
    public int dataLength() {
        return rangeCount() * DsmRange.SIZE;
    }

    public int attributes() {
        return sqe.cdw11();
    }

    public boolean integralDatasetForRead() {
        return (attributes() & ATTR_IDR) != 0;
    }

    public boolean integralDatasetForWrite() {
        return (attributes() & ATTR_IDW) != 0;
    }

    public boolean deallocate() {
        return (attributes() & ATTR_AD) != 0;
    }

    /** Decodes the NR + 1 ranges; fails, naming NR and the sizes, when {@code data} is shorter than they need. */
    public List<DsmRange> decodeRanges(MemorySegment data) {
        long needed = dataLength();
        if (data.byteSize() < needed) {
            throw new MalformedStructureException("Dataset Management NR=" + nr() + " (" + rangeCount()
                    + " ranges) needs " + needed + " bytes of range data, buffer holds " + data.byteSize());
        }
        List<DsmRange> ranges = new ArrayList<>(rangeCount());
        for (int i = 0; i < rangeCount(); i++) {
            ranges.add(DsmRange.decode(data, (long) i * DsmRange.SIZE));
        }
        return List.copyOf(ranges);
    }

    /** Writes {@code ranges} (exactly NR + 1 of them) into {@code data}. */
    public void encodeRanges(MemorySegment data, List<DsmRange> ranges) {
        if (ranges.size() != rangeCount()) {
            throw new IllegalArgumentException(ranges.size() + " ranges given, NR says " + rangeCount());
        }
        if (data.byteSize() < dataLength()) {
            throw new IllegalArgumentException("range buffer of " + data.byteSize() + " bytes, need " + dataLength());
        }
        for (int i = 0; i < ranges.size(); i++) {
            ranges.get(i).encode(data, (long) i * DsmRange.SIZE);
        }
    }

    @Override
    public String toString() {
        return String.format("DatasetManagement[cid=%d nsid=%d ranges=%d%s%s%s]", sqe.cid(), nsid(), rangeCount(),
                integralDatasetForRead() ? " idr" : "", integralDatasetForWrite() ? " idw" : "", deallocate() ? " ad" : "");
    }
}
