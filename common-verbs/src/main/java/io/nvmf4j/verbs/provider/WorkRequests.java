package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;

/**
 * Work-request rules every provider applies on post (IBA 11.4.1.1 Post Send Request: a request with more
 * scatter/gather elements than the queue pair was created with is an immediate error, nothing is posted), and the
 * completion opcode of a send-queue request, for the completions a provider makes itself (flushes). No allocation
 * unless a check fails: they run on the data path.
 */
public final class WorkRequests {
    private WorkRequests() {
    }

    /**
     * @param what "work request" or "receive", for the message
     * @throws VerbsException INVALID_ARGUMENT if {@code count} exceeds the queue pair's {@code max}
     */
    public static void checkSgeCount(String what, long wrId, int count, int max) throws VerbsException {
        if (count > max) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, what + " " + wrId + " has " + count
                    + " SGEs, the queue pair allows " + max);
        }
    }

    /** The {@link WcOpcode} a send-queue request completes with (IBA 11.4.2.1: Send with Invalidate is a Send). */
    public static WcOpcode completionOpcode(SendOpcode opcode) {
        return switch (opcode) {
            case SEND, SEND_WITH_INVALIDATE -> WcOpcode.SEND;
            case RDMA_WRITE -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
        };
    }
}
