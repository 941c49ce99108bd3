package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The tags of a TCP host queue ({@link TcpSlot}s, preallocated) and the SQE each command gets when it takes one
 * (Linux {@code nvme_tcp_setup_cmd_pdu()}): CID, PSDT for SGLs, and SGL1 either a data block of subtype offset for
 * data in the capsule ({@code nvme_tcp_set_sg_inline()}) or a transport SGL data block for data moved by data
 * PDUs or none ({@code nvme_tcp_set_sg_host_data()}, {@code nvme_tcp_set_sg_null()}). Not thread-safe: the queue's
 * lock guards it.
 */
final class TcpRequestTable {

    /** In-capsule data of admin and fabrics commands (Linux {@code NVME_TCP_ADMIN_CCSZ}). */
    static final int ADMIN_IN_CAPSULE = 8192;
    /** Transport SGL data block descriptor, NVMe/TCP's (Linux {@code NVME_TRANSPORT_SGL_DATA_DESC}): 5Ah. */
    private static final int SGL_TRANSPORT_DATA_BLOCK = 0x5A;

    private final TcpSlot[] slots;
    private final int[] freeTags;
    private int freeCount;

    /** {@code tags}: the commands outstanding at most. */
    TcpRequestTable(int tags, Arena arena) {
        if (tags < 1 || tags > TcpSlot.TAG_MASK + 1) {
            throw new IllegalArgumentException(tags + " tags, outside 1.." + (TcpSlot.TAG_MASK + 1));
        }
        this.slots = new TcpSlot[tags];
        this.freeTags = new int[tags];
        MemorySegment sqes = arena.allocate((long) tags * SubmissionQueueEntry.SIZE, 64);
        for (int t = 0; t < tags; t++) {
            slots[t] = new TcpSlot(t, sqes.asSlice((long) t * SubmissionQueueEntry.SIZE, SubmissionQueueEntry.SIZE));
            freeTags[t] = tags - 1 - t;
        }
        this.freeCount = tags;
    }

    int size() {
        return slots.length;
    }

    /** The slot of {@code tag} (free or not). */
    TcpSlot slot(int tag) {
        return slots[tag];
    }

    /**
     * A free tag for {@code request} with its SQE written, or null when all are taken. A write goes in the capsule
     * when its data fits {@code inCapsule} bytes; admin and fabrics commands take up to {@link #ADMIN_IN_CAPSULE}.
     */
    TcpSlot start(NvmeRequest request, long now, boolean admin, int inCapsule) {
        if (freeCount == 0) {
            return null;
        }
        TcpSlot s = slots[freeTags[--freeCount]];
        s.start(request, now);
        SubmissionQueueEntry sqe = s.sqe;
        sqe.clear();
        request.encode(sqe);
        sqe.cid(s.cid).psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);
        MemorySegment entry = sqe.segment();
        long dptr = SubmissionQueueEntry.OFFSET_DPTR;
        int capacity = admin || request.isFabrics() ? Math.max(ADMIN_IN_CAPSULE, inCapsule) : inCapsule;
        if (request.direction() == NvmeRequest.Direction.HOST_TO_CONTROLLER && s.length > 0
                && s.length <= capacity) {
            s.inCapsule = true;
            DataBlockDescriptor.writeInCapsule(entry, dptr, 0, s.length);
        } else {
            Wire.u64(entry, dptr, 0);
            Wire.u32(entry, dptr + 8, Integer.toUnsignedLong(s.length));
            Wire.u24(entry, dptr + 12, 0);
            Wire.u8(entry, dptr + 15, SGL_TRANSPORT_DATA_BLOCK);
        }
        return s;
    }

    /** The outstanding command with this CID, or null. */
    TcpSlot lookup(int cid) {
        int tag = cid & TcpSlot.TAG_MASK;
        if (tag >= slots.length) {
            return null;
        }
        TcpSlot s = slots[tag];
        return s.request != null && s.cid == cid ? s : null;
    }

    /** Frees the slot's tag; the request it held. */
    NvmeRequest release(TcpSlot s) {
        NvmeRequest r = s.release();
        freeTags[freeCount++] = s.tag;
        return r;
    }
}
