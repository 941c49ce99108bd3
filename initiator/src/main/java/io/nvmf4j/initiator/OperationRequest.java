package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.io.DatasetManagementCommand;
import io.nvmf4j.protocol.io.FlushCommand;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.io.WriteCommand;
import io.nvmf4j.protocol.io.WriteZeroesCommand;
import java.util.Locale;

/**
 * One request of an {@link IoOperation}: it carries one NVM command set I/O command (NVM Command Set 1.0, chapter
 * 3), one part of the split operation.
 */
final class OperationRequest extends NvmeRequest {

    enum Kind { READ, WRITE, WRITE_ZEROES, FLUSH, DATASET_MANAGEMENT }

    private final IoOperation operation;
    private final Kind kind;
    private final long nsid;
    private final long slba;
    private final int blocks;
    private final boolean flag; // FUA for read/write, DEAC for write zeroes
    private final int ranges;
    /** Dataset Management CDW11 attributes (IDR, IDW, AD). */
    private final int attributes;

    OperationRequest(IoOperation operation, Kind kind, long nsid, long slba, int blocks, boolean flag, int ranges) {
        this(operation, kind, nsid, slba, blocks, flag, ranges, 0);
    }

    /** A Dataset Management of {@code ranges} ranges with {@code attributes} in CDW11. */
    static OperationRequest datasetManagement(IoOperation operation, long nsid, int ranges, int attributes) {
        return new OperationRequest(operation, Kind.DATASET_MANAGEMENT, nsid, 0, 0, false, ranges, attributes);
    }

    private OperationRequest(IoOperation operation, Kind kind, long nsid, long slba, int blocks, boolean flag,
            int ranges, int attributes) {
        this.attributes = attributes;
        this.operation = operation;
        this.kind = kind;
        this.nsid = nsid;
        this.slba = slba;
        this.blocks = blocks;
        this.flag = flag;
        this.ranges = ranges;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        switch (kind) {
            case READ -> ReadCommand.encode(sqe, nsid, slba, blocks, flag);
            case WRITE -> WriteCommand.encode(sqe, nsid, slba, blocks, flag);
            case WRITE_ZEROES -> WriteZeroesCommand.create(sqe, nsid, slba, blocks).deallocate(flag);
            case FLUSH -> FlushCommand.create(sqe, nsid);
            case DATASET_MANAGEMENT -> DatasetManagementCommand.create(sqe, nsid, ranges, attributes);
        }
    }

    @Override
    public String describe() {
        return switch (kind) {
            case FLUSH -> "Flush nsid " + nsid;
            case DATASET_MANAGEMENT -> String.format("Dataset Management nsid %d ranges %d attributes %xh", nsid,
                    ranges, attributes);
            default -> kind.name().charAt(0) + kind.name().substring(1).toLowerCase(Locale.ROOT).replace('_', ' ') + " nsid "
                    + nsid + " slba " + slba + " blocks " + blocks;
        };
    }

    /** A multipath command fails over to another path instead of waiting for this one's reconnect. */
    @Override
    public boolean retryAfterReconnect() {
        return !operation.failFast;
    }

    @Override
    public void completed(int statusField, long result) {
        operation.commandDone(statusField == 0 ? null
                : new NvmfStatusException(describe(), Status.fromField(statusField), false));
    }

    @Override
    public void failed(NvmfException error) {
        operation.commandDone(error);
    }
}
