package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The device's STag namespace. As in siw (siw_mem_add / siw_mem_id2obj), an STag is a 24-bit index (here into this
 * table) and an 8-bit key; lookups by the progress engine are lock-free, registration takes a lock. Index 0 is
 * never used, so STag 0 (and siw's RTR STag 1) never names memory.
 *
 * <p>Keys are random (siw_mr_add_mem() draws the key with get_random_bytes()): a peer that learns one STag cannot
 * derive the others, and an index that is reused gets a key different from its previous one, so a stale STag
 * never reaches the region registered after it. Index allocation need not be random: a guessed index is useless
 * without its key, and every wrong guess costs the peer its connection (a Terminate).
 */
public final class StagTable {
    private final AtomicReferenceArray<StagEntry> entries;
    /** The last key handed out per index, so that the next one differs. */
    private final byte[] lastKeys;
    private final int[] freeIndices;
    private int freeCount;
    /** Guarded by this table's lock; seeded from the platform's secure source. */
    private final SplittableRandom random = new SplittableRandom(new SecureRandom().nextLong());

    public StagTable(int capacity) {
        entries = new AtomicReferenceArray<>(capacity + 1);
        lastKeys = new byte[capacity + 1];
        freeIndices = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            freeIndices[i] = capacity - i;
        }
        freeCount = capacity;
    }

    /** Reserves an index; returns the initial STag (index << 8 | random key). */
    synchronized int add(StagEntry entry) throws VerbsException {
        if (freeCount == 0) {
            throw new VerbsException(VerbsErrorCode.NO_RESOURCES, "no free STag: " + (entries.length() - 1)
                    + " memory regions and windows in use");
        }
        int index = freeIndices[--freeCount];
        entries.set(index, entry);
        int key = nextKey(lastKeys[index] & 0xff);
        lastKeys[index] = (byte) key;
        return index << 8 | key;
    }

    /** A random 8-bit key different from {@code previous}. */
    synchronized int nextKey(int previous) {
        return (previous + 1 + random.nextInt(255)) & 0xff;
    }

    /** A generator for one entry's later keys (a window draws one per bind, lock-free, without allocating). */
    synchronized SplittableRandom split() {
        return random.split();
    }

    synchronized void remove(int index, StagEntry entry) {
        if (entries.compareAndSet(index, entry, null)) {
            freeIndices[freeCount++] = index;
        }
    }

    /** Records the key an entry uses now (a window's bind, a region's refreshKey), for the index's next user. */
    void keyChanged(int index, int key) {
        synchronized (this) {
            lastKeys[index] = (byte) key;
        }
    }

    /** The entry whose index the STag names (its key may differ: callers compare the whole STag), or null. */
    StagEntry lookup(int stag) {
        int index = stag >>> 8;
        return index > 0 && index < entries.length() ? entries.get(index) : null;
    }

    /**
     * The registered region an lkey names, or null: memory windows are remote-only (IBA: a window's key is never a
     * local key), so an SGE naming one finds nothing.
     */
    SoftiwarpMemoryRegion lookupRegion(int stag) {
        return lookup(stag) instanceof SoftiwarpMemoryRegion mr ? mr : null;
    }

    /** How many regions and windows are registered. */
    public synchronized int size() {
        return freeIndices.length - freeCount;
    }
}
