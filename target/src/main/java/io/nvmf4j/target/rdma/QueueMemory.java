package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

/**
 * The registered memory of one {@link RdmaQueue}: the receive buffers for command capsules (nvmet-rdma's
 * {@code nvmet_rdma_alloc_cmds()}, each with room for the SQE and the port's in-capsule data) and twice as many
 * request contexts with their CQEs ({@code nvmet_rdma_alloc_rsps()}), with the free list of the contexts.
 *
 * <p>It comes in two phases: {@link QueueSizing#CONNECT_RECEIVES} receive slots before Connect (a peer that has not
 * connected holds almost nothing), the rest by {@link #grow} once Connect succeeded. Runs on the poll group's thread
 * (the first phase on the listener's thread, before the queue is published); nothing allocates after {@link #grow}.
 */
final class QueueMemory {

    private static final System.Logger LOG = System.getLogger(RdmaQueue.class.getName());

    /** The queue the request contexts belong to (and that log lines name). */
    private final RdmaQueue queue;
    private final ProtectionDomain pd;
    private final int slot;
    private final int generation;
    private final int capsuleSize;
    /** The memory of the Connect phase: {@link QueueSizing#CONNECT_RECEIVES} receive buffers and their request CQEs. */
    private final Arena arena;
    private final MemoryRegion region;
    /** The memory of the other receive buffers and requests, allocated once Connect succeeded (else null). */
    private Arena fullArena;
    private MemoryRegion fullRegion;
    private final MemorySegment[] recvBuffers;
    private final ReceiveWorkRequest[] recvs;
    private final SubmissionQueueEntry[] sqes;
    /** Per receive buffer, the last in-capsule data slice handed out and its offset (reused when they match). */
    private final MemorySegment[] inCapsuleSlices;
    private final long[] inCapsuleOffsets;
    private final RdmaRequest[] requests;
    private final int[] freeStack;
    private int freeTop;

    /** Allocates and registers the first {@code first} of {@code recvEntries} receive slots and their requests. */
    @SuppressWarnings("MustBeClosedChecker") // this object owns the arena and closes it in close()
    QueueMemory(RdmaQueue queue, ProtectionDomain pd, int slot, int generation, int recvEntries, int capsuleSize,
                int first) throws VerbsException {
        this.queue = queue;
        this.pd = pd;
        this.slot = slot;
        this.generation = generation;
        this.capsuleSize = capsuleSize;
        int requestCount = 2 * recvEntries;
        this.recvBuffers = new MemorySegment[recvEntries];
        this.recvs = new ReceiveWorkRequest[recvEntries];
        this.sqes = new SubmissionQueueEntry[recvEntries];
        this.inCapsuleSlices = new MemorySegment[recvEntries];
        this.inCapsuleOffsets = new long[recvEntries];
        this.requests = new RdmaRequest[requestCount];
        this.freeStack = new int[requestCount];
        this.arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate(phaseBytes(first), 4096);
            this.region = pd.register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            initSlots(0, first, memory, region);
        } catch (VerbsException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Receive buffers and request CQEs of {@code receives} receive slots (two requests per slot, like nvmet). */
    private long phaseBytes(int receives) {
        return (long) receives * capsuleSize + 2L * receives * CompletionQueueEntry.SIZE;
    }

    /** Sets up receive slots [from, to) and their requests in {@code memory}; the requests become free. */
    private void initSlots(int from, int to, MemorySegment memory, MemoryRegion reg) {
        long recvBytes = (long) (to - from) * capsuleSize;
        for (int i = from; i < to; i++) {
            long offset = (long) (i - from) * capsuleSize;
            recvBuffers[i] = memory.asSlice(offset, capsuleSize);
            recvs[i] = new ReceiveWorkRequest(1).wrId(WorkRequestIds.of(slot, generation, WorkRequestIds.RECV, i))
                    .local(reg, offset, capsuleSize);
            sqes[i] = SubmissionQueueEntry.wrap(memory.asSlice(offset, SubmissionQueueEntry.SIZE));
        }
        for (int i = 2 * to - 1; i >= 2 * from; i--) {
            long offset = recvBytes + (long) (i - 2 * from) * CompletionQueueEntry.SIZE;
            RdmaRequest r = new RdmaRequest(queue, i, memory.asSlice(offset, CompletionQueueEntry.SIZE));
            r.send.wrId(WorkRequestIds.of(slot, generation, WorkRequestIds.SEND, i)).signaled(true)
                    .local(reg, offset, CompletionQueueEntry.SIZE);
            r.data.wrId(WorkRequestIds.of(slot, generation, WorkRequestIds.DATA, i)).signaled(true);
            requests[i] = r;
            freeStack[freeTop++] = i;
        }
    }

    /**
     * After a successful Connect: the receive slots [{@code first}, {@code recvEntries}) and their requests. False
     * (logged) when there is no memory for them.
     */
    @SuppressWarnings("MustBeClosedChecker") // kept as fullArena (closed in close()) once set, else closed here
    boolean grow(int first, int recvEntries) {
        Arena a = Arena.ofShared();
        try {
            MemorySegment memory = a.allocate(phaseBytes(recvEntries - first), 4096);
            fullRegion = pd.register(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            fullArena = a;
            initSlots(first, recvEntries, memory, fullRegion);
            return true;
        } catch (VerbsException | RuntimeException e) {
            LOG.log(Level.WARNING, "{0}: no memory for the queue''s receive buffers: {1}", queue, e.getMessage());
            if (fullArena == null) {
                a.close();
            }
            return false;
        }
    }

    ReceiveWorkRequest receive(int recvSlot) {
        return recvs[recvSlot];
    }

    SubmissionQueueEntry sqe(int recvSlot) {
        return sqes[recvSlot];
    }

    RdmaRequest request(int index) {
        return requests[index];
    }

    /** Every request context (null where its phase is not allocated), for the timeout and teardown scans. */
    RdmaRequest[] requests() {
        return requests;
    }

    /** A free request context, or null when every one is in use. */
    RdmaRequest takeFree() {
        return freeTop == 0 ? null : requests[freeStack[--freeTop]];
    }

    void free(RdmaRequest r) {
        freeStack[freeTop++] = r.index;
    }

    /** The in-capsule data at {@code offset} behind the SQE in receive buffer {@code recvSlot}. */
    MemorySegment inCapsuleData(int recvSlot, long offset, int length) {
        MemorySegment s = inCapsuleSlices[recvSlot];
        if (s == null || inCapsuleOffsets[recvSlot] != offset || s.byteSize() != length) {
            s = recvBuffers[recvSlot].asSlice(SubmissionQueueEntry.SIZE + offset, length);
            inCapsuleSlices[recvSlot] = s;
            inCapsuleOffsets[recvSlot] = offset;
        }
        return s;
    }

    /** Deregisters and frees both phases (the queue pair is closed: nothing can touch them any more). */
    void close() {
        for (MemoryRegion r : new MemoryRegion[] {region, fullRegion}) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "{0}: deregistration: {1}", queue, e.getMessage());
            }
        }
        arena.close();
        if (fullArena != null) {
            fullArena.close();
        }
    }
}
