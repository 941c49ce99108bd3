package io.nvmf4j.initiator.rdma;

import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.util.EnumSet;

/**
 * The queue's receive buffers, one response capsule each (a bare CQE: IORCSZ 1; Linux posts receives of
 * {@code sizeof(struct nvme_completion)}), with their receive work requests and CQE views, made once. A receive's
 * work request id is {@link #RECV_FLAG} | its index, telling it from a send (whose id is the command's tag).
 */
final class ResponseBuffers implements AutoCloseable {

    /** Response capsule size: a bare CQE. */
    static final int RESPONSE_SIZE = CompletionQueueEntry.SIZE;
    static final long RECV_FLAG = 1L << 32;

    private final MemoryRegion region;
    private final CompletionQueueEntry[] responses;
    private final ReceiveWorkRequest[] receives;

    ResponseBuffers(ProtectionDomain pd, Arena arena, int count) throws VerbsException {
        region = pd.register(arena.allocate((long) count * RESPONSE_SIZE, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
        responses = new CompletionQueueEntry[count];
        receives = new ReceiveWorkRequest[count];
        for (int i = 0; i < count; i++) {
            responses[i] = CompletionQueueEntry.wrap(region.segment().asSlice((long) i * RESPONSE_SIZE,
                    RESPONSE_SIZE));
            receives[i] = new ReceiveWorkRequest(1).wrId(RECV_FLAG | i).local(region, (long) i * RESPONSE_SIZE,
                    RESPONSE_SIZE);
        }
    }

    static boolean isReceive(long wrId) {
        return (wrId & RECV_FLAG) != 0;
    }

    static int index(long wrId) {
        return (int) (wrId & 0xFFFF);
    }

    int count() {
        return responses.length;
    }

    CompletionQueueEntry cqe(int index) {
        return responses[index];
    }

    /** Posted before the CM request goes out, so that the peer's first response has a buffer. */
    void postAll(QueuePair qp) throws VerbsException {
        for (ReceiveWorkRequest receive : receives) {
            qp.postReceive(receive);
        }
    }

    void repost(QueuePair qp, int index) throws VerbsException {
        qp.postReceive(receives[index]);
    }

    @Override
    public void close() {
        region.close();
    }
}
