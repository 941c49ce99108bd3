package io.nvmf4j.verbs;

/** A fixed-capacity list of reusable {@link ScatterGatherElement}s with a current count. */
public final class ScatterGatherList {
    private final ScatterGatherElement[] elements;
    private int count;

    public ScatterGatherList(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        elements = new ScatterGatherElement[capacity];
        for (int i = 0; i < capacity; i++) {
            elements[i] = new ScatterGatherElement();
        }
    }

    /** How many elements this list can hold. */
    public int capacity() {
        return elements.length;
    }

    /** How many elements are in use (the {@code num_sge} of the work request). */
    public int count() {
        return count;
    }

    /** Sets how many elements are in use. */
    public ScatterGatherList count(int count) {
        if (count < 0 || count > elements.length) {
            throw new IllegalArgumentException("count " + count + " outside 0.." + elements.length);
        }
        this.count = count;
        return this;
    }

    /** Element {@code index} (0-based, below {@link #capacity()}). */
    public ScatterGatherElement get(int index) {
        return elements[index];
    }

    /** Uses exactly one element pointing at a region slice; returns this list. */
    public ScatterGatherList single(MemoryRegion region, long offset, int length) {
        elements[0].set(region, offset, length);
        count = 1;
        return this;
    }

    /** Total bytes of the elements in use (may exceed int range only in theory; saturates). */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += Integer.toUnsignedLong(elements[i].length());
        }
        return total;
    }
}
