package io.nvmf4j.verbs;

/**
 * One scatter/gather element ({@code struct ibv_sge}): an address, a length and the lkey of the region that
 * holds it. Mutable and reusable: set it once per buffer, patch it per operation.
 */
public final class ScatterGatherElement {
    private long address;
    private int length;
    private int lkey;

    /** An element with every field zero; {@code set} points it at a buffer. */
    public ScatterGatherElement() {
    }

    /** Points this element at {@code length} bytes of {@code region} starting {@code offset} bytes into it. */
    public ScatterGatherElement set(MemoryRegion region, long offset, int length) {
        if (offset < 0 || length < 0 || offset + length > region.length()) {
            throw new IndexOutOfBoundsException("SGE [" + offset + ", +" + length + ") outside a region of "
                    + region.length() + " bytes");
        }
        this.address = region.address() + offset;
        this.length = length;
        this.lkey = region.lkey();
        return this;
    }

    /** Sets the raw fields, as {@code struct ibv_sge}; checked against the region when the request is posted. */
    public ScatterGatherElement set(long address, int length, int lkey) {
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    public long address() {
        return address;
    }

    public int length() {
        return length;
    }

    public int lkey() {
        return lkey;
    }

    public ScatterGatherElement address(long address) {
        this.address = address;
        return this;
    }

    public ScatterGatherElement length(int length) {
        this.length = length;
        return this;
    }

    public ScatterGatherElement lkey(int lkey) {
        this.lkey = lkey;
        return this;
    }

    @Override
    public String toString() {
        return "SGE[addr=0x" + Long.toHexString(address) + ", len=" + length + ", lkey=0x" + Integer.toHexString(lkey)
                + "]";
    }
}
