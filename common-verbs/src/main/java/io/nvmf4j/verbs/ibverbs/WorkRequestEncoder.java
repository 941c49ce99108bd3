package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.ScatterGatherList;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_recv_wr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_send_wr;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_sge;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;
import io.nvmf4j.verbs.provider.WorkRequests;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reusable native {@code struct ibv_send_wr} / {@code ibv_recv_wr} chains with their {@code ibv_sge} arrays (the
 * DiSNI "stateful verb call": the memory is allocated once per queue pair, each post patches the fields and passes
 * a pointer). Slot {@code i} of a chain links to slot {@code i + 1}; the slot count grows (rarely, up to the queue
 * depth) when a longer chain is posted.
 */
final class WorkRequestEncoder {
    static final long SEND_WR_SIZE = ibv_send_wr.sizeof();
    static final long RECV_WR_SIZE = ibv_recv_wr.sizeof();
    static final long SGE_SIZE = ibv_sge.sizeof();

    private static final long S_WR_ID = ibv_send_wr.wr_id$offset();
    private static final long S_NEXT = ibv_send_wr.next$offset();
    private static final long S_SG_LIST = ibv_send_wr.sg_list$offset();
    private static final long S_NUM_SGE = ibv_send_wr.num_sge$offset();
    private static final long S_OPCODE = ibv_send_wr.opcode$offset();
    private static final long S_SEND_FLAGS = ibv_send_wr.send_flags$offset();
    private static final long S_INVALIDATE_RKEY = ibv_send_wr.invalidate_rkey$offset();
    private static final long S_REMOTE_ADDR = ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset()
            + ibv_send_wr.wr.rdma.remote_addr$offset();
    private static final long S_RKEY = ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset()
            + ibv_send_wr.wr.rdma.rkey$offset();
    private static final long R_WR_ID = ibv_recv_wr.wr_id$offset();
    private static final long R_NEXT = ibv_recv_wr.next$offset();
    private static final long R_SG_LIST = ibv_recv_wr.sg_list$offset();
    private static final long R_NUM_SGE = ibv_recv_wr.num_sge$offset();
    private static final long SGE_ADDR = ibv_sge.addr$offset();
    private static final long SGE_LENGTH = ibv_sge.length$offset();
    private static final long SGE_LKEY = ibv_sge.lkey$offset();

    private static final int WR_RDMA_WRITE = ibverbs_h.IBV_WR_RDMA_WRITE();
    private static final int WR_SEND = ibverbs_h.IBV_WR_SEND();
    private static final int WR_SEND_WITH_INV = ibverbs_h.IBV_WR_SEND_WITH_INV();
    private static final int WR_RDMA_READ = ibverbs_h.IBV_WR_RDMA_READ();
    private static final int SEND_SIGNALED = ibverbs_h.IBV_SEND_SIGNALED();
    private static final int SEND_FENCE = ibverbs_h.IBV_SEND_FENCE();
    private static final int SEND_SOLICITED = ibverbs_h.IBV_SEND_SOLICITED();
    private static final int SEND_INLINE = ibverbs_h.IBV_SEND_INLINE();

    private final Arena arena;
    private final boolean send;
    private final int maxSge;
    private final int maxChain;
    private final int maxSgeRd;
    private final int maxInline;
    /**
     * iWARP: fence the first Send or Write after an RDMA Read ({@code IBV_SEND_FENCE}). Verbs complete a send queue
     * in order, so a completion also reports the unsignaled requests before it; siw completes a Send once it is
     * handed to TCP while an earlier Read waits in the ORQ for its response (siw_qp_sq_process()), so the Send's
     * completion could come before the Read's data is placed. A fenced request waits until the ORQ is empty
     * (siw_check_tx_fence()). A Read itself cannot be fenced on siw (-EINVAL), nor does it need it: Reads complete
     * in ORQ order.
     */
    private final boolean fenceAfterRead;
    private boolean readOutstanding;
    private MemorySegment wrs;
    private MemorySegment sges;
    private int slots;
    /** {@code struct ibv_*_wr **bad_wr} for the post call. */
    final MemorySegment badWr;

    /**
     * @param maxChain the queue depth (no chain can be longer)
     * @param maxSgeRd most SGEs of an RDMA Read sink (the device's {@code max_sge_rd}; siw: 1)
     */
    WorkRequestEncoder(Arena arena, boolean send, int maxSge, int maxChain, int maxSgeRd, int maxInline,
            boolean fenceAfterRead) {
        this.arena = arena;
        this.fenceAfterRead = fenceAfterRead;
        this.send = send;
        this.maxSge = maxSge;
        this.maxChain = maxChain;
        this.maxSgeRd = maxSgeRd;
        this.maxInline = maxInline;
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
        allocate(Math.min(maxChain, 16));
    }

    private void allocate(int count) {
        wrs = arena.allocate((send ? SEND_WR_SIZE : RECV_WR_SIZE) * count, 8);
        sges = arena.allocate(SGE_SIZE * maxSge * count, 8);
        slots = count;
    }

    MemorySegment first() {
        return wrs;
    }

    /** Which slot {@code bad_wr} names after a failed post (the number of requests that were posted). */
    int badIndex() {
        long bad = badWr.get(ValueLayout.ADDRESS, 0).address();
        long size = send ? SEND_WR_SIZE : RECV_WR_SIZE;
        return bad == 0 ? 0 : (int) ((bad - wrs.address()) / size);
    }

    private void ensureSlots(int chainLength) throws VerbsException {
        if (chainLength > maxChain) {
            throw new VerbsException(VerbsErrorCode.QUEUE_FULL, "a chain of " + chainLength
                    + " work requests is longer than the queue (" + maxChain + "); nothing was posted");
        }
        if (chainLength > slots) {
            allocate(Math.min(maxChain, Math.max(chainLength, slots * 2)));
        }
    }

    private int sgList(String what, long wrId, ScatterGatherList list, int slot) throws VerbsException {
        int count = list.count();
        WorkRequests.checkSgeCount(what, wrId, count, maxSge);
        long base = SGE_SIZE * maxSge * slot;
        for (int i = 0; i < count; i++) {
            var element = list.get(i);
            long at = base + i * SGE_SIZE;
            sges.set(ValueLayout.JAVA_LONG, at + SGE_ADDR, element.address());
            sges.set(ValueLayout.JAVA_INT, at + SGE_LENGTH, element.length());
            sges.set(ValueLayout.JAVA_INT, at + SGE_LKEY, element.lkey());
        }
        return count;
    }

    /** Encodes a send chain into the slots; returns its length. */
    int encode(SendWorkRequest first) throws VerbsException {
        int length = 0;
        for (SendWorkRequest r = first; r != null; r = r.next()) {
            length++;
        }
        ensureSlots(length);
        int slot = 0;
        for (SendWorkRequest r = first; r != null; r = r.next(), slot++) {
            long base = SEND_WR_SIZE * slot;
            int sgeCount = sgList("work request", r.wrId(), r.sgList(), slot);
            int opcode;
            int flags = r.signaled() ? SEND_SIGNALED : 0;
            switch (r.opcode()) {
                case RDMA_WRITE -> opcode = WR_RDMA_WRITE;
                case SEND -> opcode = WR_SEND;
                case SEND_WITH_INVALIDATE -> opcode = WR_SEND_WITH_INV;
                case RDMA_READ -> {
                    if (sgeCount > maxSgeRd) {
                        // siw honours only the first sink SGE of a Read (interop/): refuse instead of corrupting
                        throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "an RDMA Read into " + sgeCount
                                + " SGEs, the device allows " + maxSgeRd + " (max_sge_rd)");
                    }
                    opcode = WR_RDMA_READ;
                }
                default -> throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "opcode " + r.opcode());
            }
            if (r.solicited() && (r.opcode() == SendOpcode.SEND
                    || r.opcode() == SendOpcode.SEND_WITH_INVALIDATE)) {
                flags |= SEND_SOLICITED;
            }
            if (fenceAfterRead) {
                if (r.opcode() == SendOpcode.RDMA_READ) {
                    readOutstanding = true;
                } else if (readOutstanding) {
                    flags |= SEND_FENCE;
                    readOutstanding = false;
                }
            }
            if (r.inline() && r.opcode() != SendOpcode.RDMA_READ
                    && r.sgList().totalLength() <= maxInline) {
                flags |= SEND_INLINE;
            }
            wrs.set(ValueLayout.JAVA_LONG, base + S_WR_ID, r.wrId());
            wrs.set(ValueLayout.JAVA_LONG, base + S_NEXT,
                    r.next() == null ? 0L : wrs.address() + SEND_WR_SIZE * (slot + 1));
            wrs.set(ValueLayout.JAVA_LONG, base + S_SG_LIST, sges.address() + SGE_SIZE * maxSge * slot);
            wrs.set(ValueLayout.JAVA_INT, base + S_NUM_SGE, sgeCount);
            wrs.set(ValueLayout.JAVA_INT, base + S_OPCODE, opcode);
            wrs.set(ValueLayout.JAVA_INT, base + S_SEND_FLAGS, flags);
            if (r.opcode() == SendOpcode.SEND_WITH_INVALIDATE) {
                // rdma-core 44's user-space siw provider reads the key to invalidate from wr.rdma.rkey, the
                // others from invalidate_rkey (seen in interop/): set both
                wrs.set(ValueLayout.JAVA_INT, base + S_INVALIDATE_RKEY, r.invalidateRkey());
                wrs.set(ValueLayout.JAVA_LONG, base + S_REMOTE_ADDR, 0L);
                wrs.set(ValueLayout.JAVA_INT, base + S_RKEY, r.invalidateRkey());
            } else {
                wrs.set(ValueLayout.JAVA_INT, base + S_INVALIDATE_RKEY, 0);
                wrs.set(ValueLayout.JAVA_LONG, base + S_REMOTE_ADDR, r.remoteAddress());
                wrs.set(ValueLayout.JAVA_INT, base + S_RKEY, r.rkey());
            }
        }
        return length;
    }

    /** Encodes a receive chain into the slots; returns its length. */
    int encode(ReceiveWorkRequest first) throws VerbsException {
        int length = 0;
        for (ReceiveWorkRequest r = first; r != null; r = r.next()) {
            length++;
        }
        ensureSlots(length);
        int slot = 0;
        for (ReceiveWorkRequest r = first; r != null; r = r.next(), slot++) {
            long base = RECV_WR_SIZE * slot;
            int sgeCount = sgList("receive", r.wrId(), r.sgList(), slot);
            wrs.set(ValueLayout.JAVA_LONG, base + R_WR_ID, r.wrId());
            wrs.set(ValueLayout.JAVA_LONG, base + R_NEXT,
                    r.next() == null ? 0L : wrs.address() + RECV_WR_SIZE * (slot + 1));
            wrs.set(ValueLayout.JAVA_LONG, base + R_SG_LIST, sges.address() + SGE_SIZE * maxSge * slot);
            wrs.set(ValueLayout.JAVA_INT, base + R_NUM_SGE, sgeCount);
        }
        return length;
    }
}
