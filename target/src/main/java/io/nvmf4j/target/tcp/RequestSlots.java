package io.nvmf4j.target.tcp;


/**
 * The command slots of one {@link TcpQueue} (nvmet-tcp's {@code queue->cmds} and free list): created on first need,
 * up to the queue's size once Connect set it (one before: the Connect), each with its own in-capsule data buffer of
 * the port's size, and reused. A slot whose in-capsule buffer a timed-out backend operation still uses stays out of
 * the free list until the operation ends. Poll-group thread only; no allocation once every slot exists.
 */
final class RequestSlots {

    private final TcpQueue queue;
    private final TcpBufferQuota quota;
    private final int inlineDataSize;
    private final TcpRequest[] slots;
    private final int[] free;
    private int freeCount;
    private int created;

    RequestSlots(TcpQueue queue, TcpBufferQuota quota, int inlineDataSize, int max) {
        this.queue = queue;
        this.quota = quota;
        this.inlineDataSize = inlineDataSize;
        this.slots = new TcpRequest[max];
        this.free = new int[max];
    }

    int capacity() {
        return slots.length;
    }

    /** Slots created so far; {@link #get} takes 0 up to this. */
    int created() {
        return created;
    }

    TcpRequest get(int tag) {
        return slots[tag];
    }

    /** The slot with transfer tag {@code tag}, or null when there is none. */
    TcpRequest byTag(int tag) {
        return tag >= 0 && tag < created ? slots[tag] : null;
    }

    /** A free slot, or null when {@code limit} are in use. */
    TcpRequest take(int limit) {
        if (freeCount > 0) {
            return slots[free[--freeCount]];
        }
        if (created >= Math.min(limit, slots.length)) {
            return null;
        }
        DataBlock inCapsule = inlineDataSize == 0 ? null
                : new DataBlock(DataBlock.direct(inlineDataSize, TcpBufferPool.ALIGNMENT), -1);
        TcpRequest r = new TcpRequest(queue, created, DataBlock.direct(TcpRequest.memoryBytes(), 8), inCapsule);
        slots[created++] = r;
        return r;
    }

    /**
     * The slot, its pool buffer and its part of the queue's share are free again (a command that started and was
     * not answered is reported as dropped); the slot may be taken again unless its in-capsule buffer is still lent
     * out. Idempotent.
     */
    void release(TcpRequest r, TcpPollGroup group) {
        if (r.state == TcpRequest.State.FREE) {
            return;
        }
        if (r.state == TcpRequest.State.NEED_BUFFER) {
            group.stopWaiting(r);
        }
        quota.released(r);
        if (r.block != null) {
            group.giveBuffer(r.block);
            r.block = null;
        }
        if (r.started) {
            r.started = false;
            group.observer().commandFinished(r.request, System.nanoTime() - r.arrivalNanos, false);
        }
        r.state = TcpRequest.State.FREE;
        if (!r.inCapsuleLent) {
            free[freeCount++] = r.tag;
        }
    }

    /** The backend operation that held {@code r}'s in-capsule buffer ended: the slot is free again if it is FREE. */
    void returned(TcpRequest r) {
        r.inCapsuleLent = false;
        if (r.state == TcpRequest.State.FREE) {
            free[freeCount++] = r.tag;
        }
    }

    /** A request whose R2T has waited more than {@code limitNanos} for its data at {@code now}, or null. */
    TcpRequest overdueR2t(long now, long limitNanos) {
        for (int i = 0; i < created; i++) {
            TcpRequest r = slots[i];
            if (r.state == TcpRequest.State.WAIT_H2C && now - r.r2tNanos > limitNanos) {
                return r;
            }
        }
        return null;
    }
}
