package io.nvmf4j.verbs;

/** Send queue operations ({@code enum ibv_wr_opcode}, the subset nvmf4j uses). */
public enum SendOpcode {
    /** RDMA Write: local SG list to {@code remoteAddress}/{@code rkey} (RFC 5040 RDMA Write, opcode 0). */
    RDMA_WRITE,
    /** Send: local SG list to the peer's next posted receive (RFC 5040 Send, opcode 3; with SE: 5). */
    SEND,
    /** Send with Invalidate: also invalidates {@code invalidateRkey} at the peer (RFC 5040 opcodes 4 and 6). */
    SEND_WITH_INVALIDATE,
    /** RDMA Read: {@code remoteAddress}/{@code rkey} into the local SG list (RFC 5040 Read Request, opcode 1). */
    RDMA_READ
}
