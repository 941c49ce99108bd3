package io.nvmf4j.initiator;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A read or write of NSID 1 straight on a {@link HostQueue}, for transport tests below the controller: its data is
 * a caller's segment (the copy path), or for {@link #writeInPlace} a direct buffer as a TCP controller's
 * {@link IoBuffer} gives it (sent from where it is); how it ended is a future (the status field, or the error).
 */
public final class TestRequest extends NvmeRequest {

    private final boolean read;
    private final long slba;
    /** The status field of the completion, or the failure. */
    public final CompletableFuture<Integer> done = new CompletableFuture<>();

    private TestRequest(boolean read, long slba, MemorySegment data) {
        this.read = read;
        this.slba = slba;
        copy(read ? Direction.CONTROLLER_TO_HOST : Direction.HOST_TO_CONTROLLER, data);
    }

    public static TestRequest read(long slba, MemorySegment into) {
        return new TestRequest(true, slba, into);
    }

    public static TestRequest write(long slba, MemorySegment from) {
        return new TestRequest(false, slba, from);
    }

    /** A write whose data leaves from {@code direct} itself, as from a TCP controller's {@link IoBuffer}. */
    public static TestRequest writeInPlace(long slba, ByteBuffer direct) {
        MemorySegment memory = MemorySegment.ofBuffer(direct);
        TestRequest r = new TestRequest(false, slba, memory);
        r.zeroCopy(Direction.HOST_TO_CONTROLLER, new IoBuffer(memory, direct), 0, direct.capacity());
        return r;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        sqe.opcode(read ? 0x02 : 0x01).nsid(1);
        Wire.u32(sqe.segment(), 40, slba);                       // CDW10: SLBA
        Wire.u32(sqe.segment(), 48, Math.max(0, length() / 512 - 1)); // CDW12: NLB, 0's based
    }

    @Override
    public String describe() {
        return (read ? "Read" : "Write") + " slba " + slba + " of " + length() + " bytes";
    }

    @Override
    public void completed(int statusField, long result) {
        done.complete(statusField);
    }

    @Override
    public void failed(NvmfException error) {
        done.completeExceptionally(error);
    }
}
