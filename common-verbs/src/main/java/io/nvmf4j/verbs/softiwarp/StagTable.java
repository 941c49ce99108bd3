package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The device's STag namespace. As in siw (siw_mem_add / siw_mem_id2obj), an STag is a 24-bit index (here into this
 * table) and an 8-bit key; lookups by the progress engine are lock-free, registration takes a lock. Index 0 is
 * never used, so STag 0 (and siw's RTR STag 1) never names memory.
 */
public final class StagTable {
    private final AtomicReferenceArray<SoftiwarpMemoryRegion> entries;
    private final int[] freeIndices;
    private int freeCount;
    private int nextKey = 0x5a;

    public StagTable(int capacity) {
        entries = new AtomicReferenceArray<>(capacity + 1);
        freeIndices = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            freeIndices[i] = capacity - i;
        }
        freeCount = capacity;
    }

    /** Reserves an index; returns the initial STag (index << 8 | key). */
    synchronized int add(SoftiwarpMemoryRegion region) throws VerbsException {
        if (freeCount == 0) {
            throw new VerbsException(VerbsErrorCode.NO_RESOURCES, "no free STag: " + (entries.length() - 1)
                    + " memory regions registered");
        }
        int index = freeIndices[--freeCount];
        entries.set(index, region);
        nextKey = (nextKey + 0x3b) & 0xff;
        return index << 8 | nextKey;
    }

    synchronized void remove(int index, SoftiwarpMemoryRegion region) {
        if (entries.compareAndSet(index, region, null)) {
            freeIndices[freeCount++] = index;
        }
    }

    /** The region whose index the STag names (its key may differ: callers compare the whole STag), or null. */
    public SoftiwarpMemoryRegion lookup(int stag) {
        int index = stag >>> 8;
        return index > 0 && index < entries.length() ? entries.get(index) : null;
    }

    /** How many regions are registered. */
    public synchronized int size() {
        return freeIndices.length - freeCount;
    }
}
