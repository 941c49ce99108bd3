package io.nvmf4j.initiator;

import io.nvmf4j.initiator.NvmeRequest.Direction;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.io.DatasetManagementCommand;
import io.nvmf4j.protocol.io.DsmRange;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One active namespace of a connected controller, with the NVM command set I/O: read, write, flush, write zeroes
 * and deallocate, each as a {@code CompletableFuture} ({@code *Async}) and as a blocking call.
 *
 * <p>Data: pass any {@link MemorySegment} (heap or native; it is staged through the queue's pre-registered bounce
 * buffers, one command per buffer) or an {@link IoBuffer} from {@link NvmeController#allocateBuffer} (zero copy:
 * the keyed SGL names it directly). Transfers above MDTS (or above the bounce buffer size) are split into several
 * commands; the future completes when all have, with the first error if any failed.
 *
 * <p>Back-pressure: a queue never has more commands outstanding than its SQSIZE; further commands wait inside the
 * library and their futures complete later. Futures complete on the queue's completion thread (see
 * {@link NvmeController}). Each call goes to the next I/O queue in turn; {@link #onQueue(int)} pins one.
 */
public final class Namespace implements NamespaceIo {

    private final NvmeController controller;
    private final long nsid;
    private final IdentifyNamespace identify;
    private final long blockSize;
    private final long blockCount;
    private final int pinnedQueue;

    Namespace(NvmeController controller, long nsid, IdentifyNamespace identify) {
        this(controller, nsid, identify, -1);
    }

    private Namespace(NvmeController controller, long nsid, IdentifyNamespace identify, int pinnedQueue) {
        this.controller = controller;
        this.nsid = nsid;
        this.identify = identify;
        this.blockSize = identify.blockSize();
        this.blockCount = identify.nsze();
        this.pinnedQueue = pinnedQueue;
    }

    /** A view of this namespace whose I/O all goes to I/O queue {@code index} (0-based), e.g. one per thread. */
    public Namespace onQueue(int index) {
        if (index < 0 || index >= controller.ioQueueCount()) {
            throw new IllegalArgumentException("I/O queue index " + index + " outside 0.." + (controller.ioQueueCount() - 1));
        }
        return new Namespace(controller, nsid, identify, index);
    }

    @Override
    public long nsid() {
        return nsid;
    }

    /** LBA data size in bytes (from FLBAS). */
    @Override
    public long blockSize() {
        return blockSize;
    }

    /** NSZE: the size in logical blocks. */
    public long blockCount() {
        return blockCount;
    }

    /** NSZE x the block size, saturated: NSZE is the controller's unsigned 64-bit word. */
    @Override
    public long capacityBytes() {
        return blockCount < 0 || blockCount > Long.MAX_VALUE / blockSize ? Long.MAX_VALUE : blockSize * blockCount;
    }

    /** The Identify Namespace data read at connect time. */
    @Override
    public IdentifyNamespace identify() {
        return identify;
    }

    public NvmeController controller() {
        return controller;
    }

    // ---- asynchronous -----------------------------------------------------------------------------------------

    /** Reads {@code blocks} blocks from {@code slba} into {@code destination} (at least blocks * blockSize bytes). */
    @Override
    public CompletableFuture<Void> readAsync(long slba, long blocks, MemorySegment destination) {
        return transfer(OperationRequest.Kind.READ, slba, blocks, destination, null, 0, false);
    }

    /** Writes {@code blocks} blocks from {@code source} to {@code slba}. */
    @Override
    public CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment source) {
        return transfer(OperationRequest.Kind.WRITE, slba, blocks, source, null, 0, false);
    }

    /** Writes with Force Unit Access. */
    public CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment source, boolean fua) {
        return transfer(OperationRequest.Kind.WRITE, slba, blocks, source, null, 0, fua);
    }

    /** Zero-copy read into a registered buffer at {@code offset}. */
    public CompletableFuture<Void> readAsync(long slba, long blocks, IoBuffer buffer, long offset) {
        return transfer(OperationRequest.Kind.READ, slba, blocks, null, buffer, offset, false);
    }

    /** Zero-copy write from a registered buffer at {@code offset}. */
    public CompletableFuture<Void> writeAsync(long slba, long blocks, IoBuffer buffer, long offset) {
        return transfer(OperationRequest.Kind.WRITE, slba, blocks, null, buffer, offset, false);
    }

    /**
     * Callback form of a zero-copy read: no future is made; {@code callback} runs on the completion thread once
     * every command of the read has completed.
     */
    public void submitRead(long slba, long blocks, IoBuffer buffer, long offset, IoCallback callback) {
        transfer(OperationRequest.Kind.READ, slba, blocks, null, buffer, offset, false, callback);
    }

    /** Callback form of a zero-copy write. */
    public void submitWrite(long slba, long blocks, IoBuffer buffer, long offset, IoCallback callback) {
        transfer(OperationRequest.Kind.WRITE, slba, blocks, null, buffer, offset, false, callback);
    }

    /**
     * Submits a reusable request (see {@link IoRequest}): one command (a read, write or Flush), zero copy, nothing
     * allocated. Its handler runs on the completion thread of the queue, where the request may be set up and
     * submitted again; after a failure it may run elsewhere, even inside this call (see
     * {@link IoCompletionHandler}).
     *
     * @throws IllegalStateException    the request is still in flight
     * @throws IllegalArgumentException more than {@link #maxBlocksPerRequest()} blocks, or the range leaves the buffer
     */
    public void submit(IoRequest request) {
        if (request.inFlight()) {
            throw new IllegalStateException("I/O request is still in flight");
        }
        long bytes = request.isFlush() ? 0 : checkedLength(request);
        HostQueue queue = queue();
        NvmeRequest command = request.arm(nsid, (int) bytes);
        try {
            queue.submit(command);
        } catch (RuntimeException e) {
            request.disarm(); // refused before it was queued or posted
            throw e;
        }
    }

    /** The bytes a read or write request moves, once its blocks and buffer range are checked. */
    private long checkedLength(IoRequest request) {
        int blocks = request.blocks();
        int max = maxBlocksPerRequest();
        if (blocks < 1 || blocks > max) {
            throw new IllegalArgumentException("an I/O request moves 1.." + max + " blocks, not " + blocks
                    + " (use readAsync/writeAsync to split larger transfers)");
        }
        long bytes = blocks * blockSize;
        long offset = request.offset();
        IoBuffer buffer = request.buffer();
        if (offset < 0 || offset + bytes > buffer.size()) {
            throw new IllegalArgumentException(bytes + " bytes at offset " + offset + " exceed the buffer of "
                    + buffer.size() + " bytes");
        }
        return bytes;
    }

    /** Most blocks one {@link IoRequest} may move: MDTS, the 16-bit NLB and the 24-bit keyed SGL length. */
    public int maxBlocksPerRequest() {
        return TransferLimits.maxBlocksPerCommand(blockSize, controller.maxTransferBytes(),
                KeyedSglDescriptor.MAX_LENGTH);
    }

    /**
     * Flush (NVM Command Set 3.3.2): commit the volatile write cache of this namespace. Without a future or any
     * allocation: {@link IoRequest#flush()} and {@link #submit(IoRequest)}.
     */
    @Override
    public CompletableFuture<Void> flushAsync() {
        IoOperation op = new IoOperation(1);
        OperationRequest command = new OperationRequest(op, OperationRequest.Kind.FLUSH, nsid, 0, 0, false, 0);
        command.noData();
        queue().submit(command);
        return op.future;
    }

    /** Write Zeroes (NVM Command Set 3.3.7), with DEAC when {@code deallocate}; split like data transfers. */
    @Override
    public CompletableFuture<Void> writeZeroesAsync(long slba, long blocks, boolean deallocate) {
        return writeZeroes(slba, blocks, deallocate, null).future;
    }

    /** A multipath attempt's operation: made once the command count is known, with the attempt's callback. */
    private record IoOperationFactory(IoCallback callback) {
        IoOperation make(int count) {
            return new IoOperation(count, callback, true);
        }
    }

    private IoOperation writeZeroes(long slba, long blocks, boolean deallocate, IoOperationFactory failFast) {
        checkBlocks(blocks);
        int per = TransferLimits.maxBlocksPerCommand(blockSize, controller.maxTransferBytes(), Long.MAX_VALUE);
        int count = Math.toIntExact(TransferLimits.commandCount(blocks, per));
        IoOperation op = failFast == null ? new IoOperation(count) : failFast.make(count);
        HostQueue queue = queue();
        for (long done = 0; done < blocks; done += per) {
            int n = (int) Math.min(per, blocks - done);
            OperationRequest c = new OperationRequest(op, OperationRequest.Kind.WRITE_ZEROES, nsid, slba + done, n,
                    deallocate, 0);
            c.noData();
            queue.submit(c);
        }
        return op;
    }

    /** Dataset Management with the Deallocate attribute over one LBA range (split into 2^32-1 block ranges). */
    @Override
    public CompletableFuture<Void> deallocateAsync(long slba, long blocks) {
        return datasetManagementAsync(deallocateRanges(slba, blocks), DatasetManagementCommand.ATTR_AD);
    }

    private static List<DsmRange> deallocateRanges(long slba, long blocks) {
        checkBlocks(blocks);
        List<DsmRange> ranges = new ArrayList<>();
        for (long done = 0; done < blocks; done += 0xFFFF_FFFFL) {
            ranges.add(DsmRange.of(slba + done, Math.min(0xFFFF_FFFFL, blocks - done)));
        }
        if (ranges.size() > DatasetManagementCommand.MAX_RANGES) {
            throw new IllegalArgumentException("deallocate of " + blocks + " blocks needs more than 256 ranges");
        }
        return ranges;
    }

    /**
     * Dataset Management (NVM Command Set 1.0, 3.2.3; {@code nvme dsm}): 1..256 {@code ranges} (each with its
     * context attributes, length in blocks and starting LBA, the 16-byte {@link DsmRange} of Figure 39) and the
     * CDW11 {@code attributes}: {@link DatasetManagementCommand#ATTR_IDR} (integral dataset for read),
     * {@link DatasetManagementCommand#ATTR_IDW} (for write), {@link DatasetManagementCommand#ATTR_AD} (deallocate),
     * any combination; the hints alone change no data.
     */
    public CompletableFuture<Void> datasetManagementAsync(List<DsmRange> ranges, int attributes) {
        if (ranges.isEmpty() || ranges.size() > DatasetManagementCommand.MAX_RANGES) {
            throw new IllegalArgumentException("Dataset Management takes 1..256 ranges, not " + ranges.size());
        }
        return datasetManagement(ranges, attributes, new IoOperation(1)).future;
    }

    private IoOperation datasetManagement(List<DsmRange> ranges, int attributes, IoOperation op) {
        MemorySegment data = MemorySegment.ofArray(new byte[ranges.size() * DsmRange.SIZE]);
        for (int i = 0; i < ranges.size(); i++) {
            ranges.get(i).encode(data, (long) i * DsmRange.SIZE);
        }
        OperationRequest c = OperationRequest.datasetManagement(op, nsid, ranges.size(), attributes);
        c.copy(Direction.HOST_TO_CONTROLLER, data);
        queue().submit(c);
        return op;
    }

    // ---- blocking -------------------------------------------------------------------------------------------

    public void read(long slba, long blocks, MemorySegment destination) throws NvmfException {
        await(readAsync(slba, blocks, destination), "read");
    }

    public void write(long slba, long blocks, MemorySegment source) throws NvmfException {
        await(writeAsync(slba, blocks, source), "write");
    }

    public void read(long slba, long blocks, IoBuffer buffer, long offset) throws NvmfException {
        await(readAsync(slba, blocks, buffer, offset), "read");
    }

    public void write(long slba, long blocks, IoBuffer buffer, long offset) throws NvmfException {
        await(writeAsync(slba, blocks, buffer, offset), "write");
    }

    public void flush() throws NvmfException {
        await(flushAsync(), "flush");
    }

    public void writeZeroes(long slba, long blocks, boolean deallocate) throws NvmfException {
        await(writeZeroesAsync(slba, blocks, deallocate), "write zeroes");
    }

    public void deallocate(long slba, long blocks) throws NvmfException {
        await(deallocateAsync(slba, blocks), "deallocate");
    }

    public void datasetManagement(List<DsmRange> ranges, int attributes) throws NvmfException {
        await(datasetManagementAsync(ranges, attributes), "dataset management");
    }

    private void await(CompletableFuture<Void> future, String what) throws NvmfException {
        ConnectOptions o = controller.options();
        // Bounded: a command times out after command-timeout; waiting I/O fails at ctrl-loss-tmo at the latest.
        long loss = o.ctrlLossTimeout().isNegative() ? TimeUnit.HOURS.toMillis(24) : o.ctrlLossTimeout().toMillis();
        long bound = o.commandTimeout().toMillis() * 2 + loss + o.reconnectDelay().toMillis() + 5000;
        Futures.await(future, bound, controller.name() + " nsid " + nsid + " " + what);
    }

    // ---- splitting ------------------------------------------------------------------------------------------

    private CompletableFuture<Void> transfer(OperationRequest.Kind kind, long slba, long blocks, MemorySegment segment,
            IoBuffer buffer, long offset, boolean fua) {
        return transfer(kind, slba, blocks, segment, buffer, offset, fua, null);
    }

    private CompletableFuture<Void> transfer(OperationRequest.Kind kind, long slba, long blocks, MemorySegment segment,
            IoBuffer buffer, long offset, boolean fua, IoCallback callback) {
        return transfer(kind, slba, blocks, segment, buffer, offset, fua, callback, false);
    }

    /**
     * One attempt of a {@link MultipathNamespace} I/O on this path: copied through the bounce buffers, failing fast
     * when the connection breaks (the caller fails over). Flush, Write Zeroes ({@code fua}: DEAC) and a Deallocate
     * (Dataset Management) of the range take no segment.
     */
    void submitFailFast(OperationRequest.Kind kind, long slba, long blocks, MemorySegment segment, boolean fua,
            IoCallback callback) {
        switch (kind) {
            case FLUSH -> {
                OperationRequest command = new OperationRequest(new IoOperation(1, callback, true),
                        OperationRequest.Kind.FLUSH, nsid, 0, 0, false, 0);
                command.noData();
                queue().submit(command);
            }
            case WRITE_ZEROES -> writeZeroes(slba, blocks, fua, new IoOperationFactory(callback));
            case DATASET_MANAGEMENT -> datasetManagement(deallocateRanges(slba, blocks),
                    DatasetManagementCommand.ATTR_AD, new IoOperation(1, callback, true));
            default -> transfer(kind, slba, blocks, segment, null, 0, fua, callback, true);
        }
    }

    private CompletableFuture<Void> transfer(OperationRequest.Kind kind, long slba, long blocks, MemorySegment segment,
            IoBuffer buffer, long offset, boolean fua, IoCallback callback, boolean failFast) {
        checkBlocks(blocks);
        long bytes = blocks * blockSize;
        Direction direction = kind == OperationRequest.Kind.READ ? Direction.CONTROLLER_TO_HOST
                : Direction.HOST_TO_CONTROLLER;
        HostQueue queue = queue();
        long pathLimit;
        if (buffer != null) {
            if (offset < 0 || offset + bytes > buffer.size()) {
                throw new IllegalArgumentException(bytes + " bytes at offset " + offset + " exceed the buffer of "
                        + buffer.size() + " bytes");
            }
            pathLimit = KeyedSglDescriptor.MAX_LENGTH;
        } else {
            if (segment.byteSize() < bytes) {
                throw new IllegalArgumentException(blocks + " blocks of " + blockSize + " bytes need " + bytes
                        + " bytes; the segment has " + segment.byteSize());
            }
            pathLimit = queue.bufferSize();
        }
        int per = TransferLimits.maxBlocksPerCommand(blockSize, controller.maxTransferBytes(), pathLimit);
        int count = Math.toIntExact(TransferLimits.commandCount(blocks, per));
        IoOperation op = new IoOperation(count, callback, failFast);
        for (long done = 0; done < blocks; done += per) {
            int n = (int) Math.min(per, blocks - done);
            long byteOffset = done * blockSize;
            int length = (int) (n * blockSize);
            OperationRequest c = new OperationRequest(op, kind, nsid, slba + done, n, fua, 0);
            if (buffer != null) {
                c.zeroCopy(direction, buffer, offset + byteOffset, length);
            } else {
                c.copy(direction, segment.asSlice(byteOffset, length));
            }
            queue.submit(c);
        }
        return op.future;
    }

    private static void checkBlocks(long blocks) {
        if (blocks < 1) {
            throw new IllegalArgumentException("block count must be at least 1: " + blocks);
        }
    }

    private HostQueue queue() {
        return pinnedQueue >= 0 ? controller.ioQueue(pinnedQueue) : controller.nextIoQueue();
    }

    @Override
    public String toString() {
        return "nsid " + nsid + " (" + blockCount + " blocks of " + blockSize + " bytes)";
    }
}
