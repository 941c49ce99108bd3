package io.nvmf4j.verbs;

/**
 * A send-queue work request ({@code struct ibv_send_wr}). Mutable and reusable: allocate one per outstanding
 * operation slot, patch its fields and post it again; posting copies what the provider needs, so the object may
 * be changed as soon as {@link QueuePair#postSend(SendWorkRequest)} returns. Requests chained with
 * {@link #next(SendWorkRequest)} are posted by one call and executed in order (e.g. an RDMA Write of read data
 * followed by the response Send).
 */
public final class SendWorkRequest {
    private long wrId;
    private SendOpcode opcode = SendOpcode.SEND;
    private boolean signaled = true;
    private boolean solicited;
    private boolean inline;
    private final ScatterGatherList sgList;
    private long remoteAddress;
    private int rkey;
    private int invalidateRkey;
    private SendWorkRequest next;

    /** A request whose SG list holds up to {@code maxSge} elements. */
    public SendWorkRequest(int maxSge) {
        this.sgList = new ScatterGatherList(maxSge);
    }

    /** A request with one SG element. */
    public SendWorkRequest() {
        this(1);
    }

    /** The caller's identifier, returned in the completion. */
    public long wrId() {
        return wrId;
    }

    public SendWorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    public SendOpcode opcode() {
        return opcode;
    }

    public SendWorkRequest opcode(SendOpcode opcode) {
        this.opcode = java.util.Objects.requireNonNull(opcode, "opcode");
        return this;
    }

    /** Whether a successful completion is generated ({@code IBV_SEND_SIGNALED}); errors always complete. */
    public boolean signaled() {
        return signaled;
    }

    public SendWorkRequest signaled(boolean signaled) {
        this.signaled = signaled;
        return this;
    }

    /** Solicited event ({@code IBV_SEND_SOLICITED}): sends go out as Send with SE (RFC 5040 opcodes 5/6). */
    public boolean solicited() {
        return solicited;
    }

    public SendWorkRequest solicited(boolean solicited) {
        this.solicited = solicited;
        return this;
    }

    /** Inline data hint ({@code IBV_SEND_INLINE}); a provider may ignore it. */
    public boolean inline() {
        return inline;
    }

    public SendWorkRequest inline(boolean inline) {
        this.inline = inline;
        return this;
    }

    /** The local buffers: the source of SEND/RDMA_WRITE, the sink of RDMA_READ. */
    public ScatterGatherList sgList() {
        return sgList;
    }

    /** The peer's virtual address for RDMA_WRITE/RDMA_READ ({@code wr.rdma.remote_addr}). */
    public long remoteAddress() {
        return remoteAddress;
    }

    public SendWorkRequest remoteAddress(long remoteAddress) {
        this.remoteAddress = remoteAddress;
        return this;
    }

    /** The peer's rkey (STag) for RDMA_WRITE/RDMA_READ ({@code wr.rdma.rkey}). */
    public int rkey() {
        return rkey;
    }

    public SendWorkRequest rkey(int rkey) {
        this.rkey = rkey;
        return this;
    }

    /** The peer's rkey to invalidate with SEND_WITH_INVALIDATE ({@code invalidate_rkey}). */
    public int invalidateRkey() {
        return invalidateRkey;
    }

    public SendWorkRequest invalidateRkey(int invalidateRkey) {
        this.invalidateRkey = invalidateRkey;
        return this;
    }

    /** The next request of a chain, or null. */
    public SendWorkRequest next() {
        return next;
    }

    public SendWorkRequest next(SendWorkRequest next) {
        this.next = next;
        return this;
    }

    /** Shorthand: one SG element over a region slice. */
    public SendWorkRequest local(MemoryRegion region, long offset, int length) {
        sgList.single(region, offset, length);
        return this;
    }

    /** Shorthand: the remote address and rkey of an RDMA operation. */
    public SendWorkRequest remote(long remoteAddress, int rkey) {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }
}
