package io.nvmf4j.verbs;

/**
 * A receive-queue work request ({@code struct ibv_recv_wr}). Mutable and reusable like {@link SendWorkRequest}:
 * posting copies what the provider needs.
 */
public final class ReceiveWorkRequest {
    private long wrId;
    private final ScatterGatherList sgList;
    private ReceiveWorkRequest next;

    public ReceiveWorkRequest(int maxSge) {
        this.sgList = new ScatterGatherList(maxSge);
    }

    public ReceiveWorkRequest() {
        this(1);
    }

    public long wrId() {
        return wrId;
    }

    public ReceiveWorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** Where an incoming Send is placed, in order. */
    public ScatterGatherList sgList() {
        return sgList;
    }

    public ReceiveWorkRequest next() {
        return next;
    }

    public ReceiveWorkRequest next(ReceiveWorkRequest next) {
        this.next = next;
        return this;
    }

    /** Shorthand: one SG element over a region slice. */
    public ReceiveWorkRequest local(MemoryRegion region, long offset, int length) {
        sgList.single(region, offset, length);
        return this;
    }
}
