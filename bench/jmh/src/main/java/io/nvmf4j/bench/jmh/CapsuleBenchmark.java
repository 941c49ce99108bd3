package io.nvmf4j.bench.jmh;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Capsule encode/decode as the data path does it per I/O: the host builds a Read command capsule (64-byte SQE with a
 * keyed SGL data block, NVMe-oF 1.1 7.3.2 / NVMe Base 2.0 4.4) in registered (off-heap) memory, the target decodes
 * it; the target encodes the 16-byte completion, the host decodes it. All in a reused off-heap slot, as the queues
 * keep their capsule buffers registered.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class CapsuleBenchmark {

    private MemorySegment sqeSlot;
    private MemorySegment cqeSlot;
    private SubmissionQueueEntry sqe;
    private CompletionQueueEntry cqe;
    private int cid;
    private long slba;

    @Setup
    public void setup() {
        Arena arena = Arena.ofAuto();
        sqeSlot = arena.allocate(SubmissionQueueEntry.SIZE, 64);
        cqeSlot = arena.allocate(CompletionQueueEntry.SIZE, 16);
        sqe = SubmissionQueueEntry.wrap(sqeSlot);
        cqe = CompletionQueueEntry.wrap(cqeSlot);
        encodeReadCapsule();
        encodeCompletion();
    }

    /** Host side: the SQE of a 4 KiB read with a keyed SGL, as RdmaHostQueue builds it (a new descriptor record). */
    @Benchmark
    public MemorySegment encodeReadCapsule() {
        cid = (cid + 1) & 0xFFFF;
        slba = (slba + 8) & 0xFFFFF;
        ReadCommand.create(sqe.clear(), 1, slba, 8);
        sqe.cid(cid);
        sqe.flags(0x40); // PSDT 01b: SGL for the data transfer (NVMe Base 2.0 4.1, Figure 88)
        new KeyedSglDescriptor(0x7f00_0000_1000L + slba * 512, 4096, 0x1234_5601, false).encode(sqe.dptr());
        return sqeSlot;
    }

    /** Same capsule without clearing the 64 bytes first: the cost of the clear. */
    @Benchmark
    public MemorySegment encodeReadCapsuleNoClear() {
        cid = (cid + 1) & 0xFFFF;
        slba = (slba + 8) & 0xFFFFF;
        sqe.opcode(0x02).cid(cid).nsid(1).flags(0x40);
        sqe.setLong(40, slba).cdw(12, 7);
        new KeyedSglDescriptor(0x7f00_0000_1000L + slba * 512, 4096, 0x1234_5601, false).encode(sqe.dptr());
        return sqeSlot;
    }

    /** Target side: opcode, cid, nsid, LBA range and the keyed SGL out of a received capsule. */
    @Benchmark
    public long decodeReadCapsule() {
        SubmissionQueueEntry s = SubmissionQueueEntry.wrap(sqeSlot);
        ReadCommand read = ReadCommand.wrap(s);
        SglDescriptor sgl = SglDescriptor.decode(s.dptr());
        long acc = s.opcode() + s.cid() + read.nsid() + read.slba() + read.blocks();
        if (sgl instanceof KeyedSglDescriptor k) {
            acc += k.address() + k.length() + k.key();
        }
        return acc;
    }

    /** Target side: a success completion for the command. */
    @Benchmark
    public MemorySegment encodeCompletion() {
        cid = (cid + 1) & 0xFFFF;
        cqe.clear().cid(cid).sqHead(cid & 127).sqId(1).status(Status.SUCCESS);
        return cqeSlot;
    }

    /** Host side: which command completed and how. */
    @Benchmark
    public long decodeCompletion() {
        CompletionQueueEntry c = CompletionQueueEntry.wrap(cqeSlot);
        return c.cid() + c.sqHead() + c.statusField() + c.result();
    }

    /**
     * Control: the same Read capsule written with {@code Wire}'s {@code static final} little-endian layouts instead
     * of the entry's accessors. The difference to {@link #encodeReadCapsuleNoClear} is what the accessors' per-call
     * {@code withOrder(LE)} costs (a new layout and a VarHandle cache lookup per field).
     */
    @Benchmark
    public MemorySegment encodeReadCapsuleStaticLayouts() {
        cid = (cid + 1) & 0xFFFF;
        slba = (slba + 8) & 0xFFFFF;
        MemorySegment s = sqeSlot;
        Wire.u8(s, SubmissionQueueEntry.OFFSET_OPCODE, 0x02);
        Wire.u8(s, SubmissionQueueEntry.OFFSET_FLAGS, 0x40);
        Wire.u16(s, SubmissionQueueEntry.OFFSET_CID, cid);
        Wire.u32(s, SubmissionQueueEntry.OFFSET_NSID, 1);
        Wire.u64(s, 40, slba);
        Wire.u32(s, 48, 7);
        new KeyedSglDescriptor(0x7f00_0000_1000L + slba * 512, 4096, 0x1234_5601, false)
                .encode(s.asSlice(SubmissionQueueEntry.OFFSET_DPTR, SubmissionQueueEntry.DPTR_LENGTH));
        return sqeSlot;
    }

    /** Control for {@link #decodeCompletion}: the same fields read with {@code Wire}'s static layouts. */
    @Benchmark
    public long decodeCompletionStaticLayouts() {
        MemorySegment c = cqeSlot;
        return Wire.u16(c, CompletionQueueEntry.OFFSET_CID) + Wire.u16(c, CompletionQueueEntry.OFFSET_SQHD)
                + (Wire.u16(c, CompletionQueueEntry.OFFSET_STATUS) >>> 1) + Wire.u64(c, CompletionQueueEntry.OFFSET_RESULT);
    }
}
