package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The queue's command slots ({@link RequestSlot} per tag), their command ids, and the bounce buffer pool, with the
 * data mapping of Linux {@code nvme_rdma_map_data()}: no data gives a null keyed SGL
 * ({@code nvme_rdma_set_sg_null}); a write that fits the in-capsule size goes inline after the SQE with a data
 * block descriptor of offset 0 ({@code nvme_rdma_map_sg_inline}); everything else is a keyed SGL naming exactly the
 * command's bytes through the slot's memory window, bound for the command's life only with only the right it needs
 * ({@code nvme_rdma_map_sg_fr}; issue 13, F6). Guarded by the queue's lock; allocates nothing after construction.
 */
final class RequestTable implements AutoCloseable {

    /** A window's right for a command whose data goes to the host (Read, Identify): the target RDMA-Writes it. */
    private static final Set<AccessFlag> CONTROLLER_WRITES = EnumSet.of(AccessFlag.REMOTE_WRITE);
    /** A window's right for a command whose data goes to the controller (Write): the target RDMA-Reads it. */
    private static final Set<AccessFlag> CONTROLLER_READS = EnumSet.of(AccessFlag.REMOTE_READ);
    /** Memory the host owns: local access and window binding, never remote access of its own. */
    static final Set<AccessFlag> HOST_BUFFER_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);

    /** The three SGL1 forms the host sends. */
    enum SglForm { NULL_KEYED, IN_CAPSULE, KEYED }

    /** {@link #start} outcomes. */
    enum Start { STARTED, NO_ROOM, FAILED }

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final MemoryRegion sqeRegion;
    private final BounceBufferPool pool;
    private final RequestSlot[] slots;
    private final CommandIdAllocator ids;

    RequestTable(ProtectionDomain pd, Arena arena, int queueSize, int bufferSize, int buffers) throws VerbsException {
        boolean ok = false;
        try {
            sqeRegion = track(pd.register(arena.allocate((long) queueSize * SubmissionQueueEntry.SIZE, 64),
                    EnumSet.of(AccessFlag.LOCAL_WRITE)));
            long poolBytes = (long) bufferSize * buffers;
            // a direct buffer where it fits one: softiwarp answers the target's RDMA Reads out of it with a
            // gathering write that allocates nothing (ProtectionDomain.register(ByteBuffer, ...))
            MemoryRegion poolRegion = poolBytes <= Integer.MAX_VALUE - 4096
                    ? pd.register(ByteBuffer.allocateDirect((int) poolBytes + 4096).alignedSlice(4096)
                    .slice(0, (int) poolBytes), HOST_BUFFER_ACCESS)
                    : pd.register(arena.allocate(poolBytes, 4096), HOST_BUFFER_ACCESS);
            pool = new BounceBufferPool(track(poolRegion), bufferSize, buffers);
            slots = new RequestSlot[queueSize];
            for (int tag = 0; tag < queueSize; tag++) {
                SubmissionQueueEntry sqe = SubmissionQueueEntry.wrap(sqeRegion.segment().asSlice(
                        (long) tag * SubmissionQueueEntry.SIZE, SubmissionQueueEntry.SIZE));
                SendWorkRequest send = new SendWorkRequest(2).opcode(SendOpcode.SEND).signaled(true).wrId(tag);
                slots[tag] = new RequestSlot(tag, sqe, send, track(pd.allocateWindow()));
            }
            ids = new CommandIdAllocator(queueSize);
            ok = true;
        } finally {
            if (!ok) {
                close();
            }
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    int bufferSize() {
        return pool.bufferSize();
    }

    int size() {
        return slots.length;
    }

    int outstanding() {
        return ids.outstanding();
    }

    /** The request of {@code tag} if a command occupies it, else null (a stale completion). */
    RequestSlot active(int tag) {
        return tag >= 0 && tag < slots.length && ids.isOutstanding(tag) ? slots[tag] : null;
    }

    /** The request a response's command id names, or null ("tag not found" in nvme_rdma_process_nvme_rsp()). */
    RequestSlot lookup(int cid) {
        int tag = ids.lookup(cid);
        return tag < 0 ? null : slots[tag];
    }

    /** Decides the SGL1 form of a command, as nvme_rdma_map_data() does. */
    static SglForm sglForm(NvmeRequest.Direction direction, int length, int inCapsuleCapacity) {
        if (direction == NvmeRequest.Direction.NONE || length == 0) {
            return SglForm.NULL_KEYED;
        }
        if (direction == NvmeRequest.Direction.HOST_TO_CONTROLLER && length <= inCapsuleCapacity) {
            return SglForm.IN_CAPSULE;
        }
        return SglForm.KEYED;
    }

    /**
     * Takes a slot (and bounce buffer) for {@code command} and writes its SQE, SGL1 and send work request, binding
     * the slot's window for a keyed command. {@link Start#NO_ROOM} when {@code maxOutstanding} are out or no bounce
     * buffer is free; {@link Start#FAILED} when the window cannot be bound (e.g. the caller closed its buffer): the
     * slot is free again and {@code command.tag()} is -1.
     */
    Start start(NvmeRequest command, long startNanos, int maxOutstanding, int inCapsuleCapacity)
            throws VerbsException {
        if (ids.outstanding() >= maxOutstanding) {
            return Start.NO_ROOM;
        }
        boolean needsBuffer = command.direction() != NvmeRequest.Direction.NONE && command.length() > 0
                && command.region() == null;
        if (needsBuffer && command.length() > pool.bufferSize()) {
            throw new IllegalArgumentException(command.describe() + ": " + command.length()
                    + " bytes exceed the bounce buffer size " + pool.bufferSize() + " (split the transfer)");
        }
        if (needsBuffer && pool.isEmpty()) {
            return Start.NO_ROOM;
        }
        RequestSlot slot = slots[ids.acquire()];
        slot.start(command, needsBuffer ? pool.acquire() : -1, startNanos);

        SubmissionQueueEntry sqe = slot.sqe;
        sqe.clear();
        command.encode(sqe);
        sqe.cid(ids.commandId(slot.tag)).psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);

        MemoryRegion dataRegion = command.region();
        long dataOffset = command.regionOffset();
        if (slot.buffer >= 0) {
            dataRegion = pool.region();
            dataOffset = pool.offset(slot.buffer);
            if (command.direction() == NvmeRequest.Direction.HOST_TO_CONTROLLER) {
                pool.copyIn(slot.buffer, command.copySegment(), command.length());
            }
        }
        SendWorkRequest send = slot.send;
        send.sgList().get(0).set(sqeRegion, (long) slot.tag * SubmissionQueueEntry.SIZE, SubmissionQueueEntry.SIZE);
        switch (sglForm(command.direction(), command.length(), inCapsuleCapacity)) {
            case NULL_KEYED -> {
                Sgl1Encoder.nullKeyed(sqe.segment());
                send.sgList().count(1);
            }
            case IN_CAPSULE -> {
                Sgl1Encoder.inCapsule(sqe.segment(), 0, command.length());
                send.sgList().get(1).set(dataRegion, dataOffset, command.length());
                send.sgList().count(2);
            }
            case KEYED -> {
                int rkey;
                try {
                    rkey = slot.window.bind(dataRegion, dataOffset, command.length(),
                            command.direction() == NvmeRequest.Direction.CONTROLLER_TO_HOST
                                    ? CONTROLLER_WRITES : CONTROLLER_READS);
                } catch (VerbsException e) {
                    release(slot);
                    throw e;
                }
                slot.keyed = true;
                Sgl1Encoder.keyed(sqe.segment(), dataRegion.address() + dataOffset, command.length(), rkey,
                        slot.window.remotelyInvalidatable());
                send.sgList().count(1);
            }
        }
        return Start.STARTED;
    }

    /**
     * Ends the target's access to the command's bytes (nvme_rdma_inv_rkey()) if its window is still bound.
     * Synchronous: once this returns, the key is dead.
     */
    void invalidate(RequestSlot slot) {
        if (slot.keyed) {
            slot.window.invalidate();
            slot.keyed = false;
        }
    }

    /** Frees the slot whatever way its command ended (failure, timeout, reconnect) and returns the command. */
    NvmeRequest release(RequestSlot slot) {
        invalidate(slot);
        if (slot.buffer >= 0) {
            pool.release(slot.buffer);
            slot.buffer = -1;
        }
        NvmeRequest command = slot.request;
        slot.request = null;
        ids.release(slot.tag);
        if (command != null) {
            command.tag(-1);
        }
        return command;
    }

    /** Both halves are in: copies a successful read out of its bounce buffer and frees the slot. */
    NvmeRequest finish(RequestSlot slot) {
        NvmeRequest command = slot.request;
        if (slot.buffer >= 0 && command.direction() == NvmeRequest.Direction.CONTROLLER_TO_HOST && slot.status == 0) {
            pool.copyOut(slot.buffer, command.copySegment(), command.length());
        }
        return release(slot);
    }

    @Override
    public void close() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception ignored) {
                // closing registered memory of a queue that is going away
            }
        }
        resources.clear();
    }
}
