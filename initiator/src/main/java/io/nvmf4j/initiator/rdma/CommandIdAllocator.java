package io.nvmf4j.initiator.rdma;

/**
 * Command identifiers for one queue: a tag (the request slot, 0..capacity-1) in bits 11:0 and a 4-bit generation
 * in bits 15:12, as Linux {@code nvme_cid()} builds them ({@code drivers/nvme/host/nvme.h}). The generation
 * changes every time a slot is reused, so a stale or duplicated completion for an earlier use of the slot is
 * recognised instead of completing the wrong command. Not thread-safe: the queue's lock guards it.
 */
public final class CommandIdAllocator {

    /** Tags live in 12 bits (Linux NVME_CID_GENCTR_MASK leaves bits 11:0 to the tag). */
    public static final int MAX_CAPACITY = 4096;

    private final int[] freeTags;
    private int freeCount;
    private final byte[] generation;
    private final boolean[] outstanding;

    public CommandIdAllocator(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("command id capacity " + capacity + " outside 1.." + MAX_CAPACITY);
        }
        freeTags = new int[capacity];
        generation = new byte[capacity];
        outstanding = new boolean[capacity];
        for (int i = 0; i < capacity; i++) {
            freeTags[i] = capacity - 1 - i; // tag 0 is handed out first
        }
        freeCount = capacity;
    }

    public int capacity() {
        return freeTags.length;
    }

    /** Commands handed out and not yet released. */
    public int outstanding() {
        return freeTags.length - freeCount;
    }

    public boolean hasFree() {
        return freeCount > 0;
    }

    /** A free tag, marked outstanding with a new generation; -1 when all are in use (back-pressure). */
    public int acquire() {
        if (freeCount == 0) {
            return -1;
        }
        int tag = freeTags[--freeCount];
        generation[tag] = (byte) ((generation[tag] + 1) & 0xF);
        outstanding[tag] = true;
        return tag;
    }

    /** The CID that goes on the wire for an outstanding tag. */
    public int commandId(int tag) {
        return (generation[tag] & 0xF) << 12 | tag;
    }

    /** The tag of an outstanding command with exactly this CID, or -1 if none (unknown, stale or released). */
    public int lookup(int cid) {
        int tag = cid & 0xFFF;
        if (tag >= freeTags.length || !outstanding[tag] || (generation[tag] & 0xF) != (cid >>> 12 & 0xF)) {
            return -1;
        }
        return tag;
    }

    public boolean isOutstanding(int tag) {
        return outstanding[tag];
    }

    /** Returns a tag to the free list; releasing a tag that is not outstanding is a bug and fails loudly. */
    public void release(int tag) {
        if (!outstanding[tag]) {
            throw new IllegalStateException("tag " + tag + " released twice");
        }
        outstanding[tag] = false;
        freeTags[freeCount++] = tag;
    }
}
