package io.nvmf4j.verbs;

/** Access rights of a memory region ({@code enum ibv_access_flags}). */
public enum AccessFlag {
    /** The local adapter may write into the region (receive buffers, RDMA Read sinks). */
    LOCAL_WRITE,
    /** A peer may read the region with RDMA Read (the region's rkey is sent to it). */
    REMOTE_READ,
    /** A peer may write the region with RDMA Write. Needs {@link #LOCAL_WRITE}, as in verbs. */
    REMOTE_WRITE,
    /**
     * Memory windows may be bound to the region ({@code IBV_ACCESS_MW_BIND}, IBA 10.6.7): see
     * {@link ProtectionDomain#allocateWindow()}. It gives no access by itself; a window's rights are its own.
     */
    MW_BIND
}
