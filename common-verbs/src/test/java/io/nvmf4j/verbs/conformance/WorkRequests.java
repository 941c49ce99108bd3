package io.nvmf4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

/** Short constructors for the work requests of the suite, and completion assertions. */
public final class WorkRequests {
    private WorkRequests() {
    }

    public static SendWorkRequest send(long wrId, GuardedRegion local, long offset, int length) {
        return new SendWorkRequest().wrId(wrId).opcode(SendOpcode.SEND).local(local.region(), offset, length);
    }

    public static SendWorkRequest sendWithInvalidate(long wrId, GuardedRegion local, long offset, int length,
            int peerRkeyToInvalidate) {
        return new SendWorkRequest().wrId(wrId).opcode(SendOpcode.SEND_WITH_INVALIDATE)
                .local(local.region(), offset, length).invalidateRkey(peerRkeyToInvalidate);
    }

    public static SendWorkRequest rdmaWrite(long wrId, GuardedRegion local, long offset, int length,
            long remoteAddress, int rkey) {
        return new SendWorkRequest().wrId(wrId).opcode(SendOpcode.RDMA_WRITE).local(local.region(), offset, length)
                .remote(remoteAddress, rkey);
    }

    public static SendWorkRequest rdmaRead(long wrId, GuardedRegion local, long offset, int length,
            long remoteAddress, int rkey) {
        return new SendWorkRequest().wrId(wrId).opcode(SendOpcode.RDMA_READ).local(local.region(), offset, length)
                .remote(remoteAddress, rkey);
    }

    public static ReceiveWorkRequest receive(long wrId, GuardedRegion local, long offset, int length) {
        return new ReceiveWorkRequest().wrId(wrId).local(local.region(), offset, length);
    }

    /** Asserts a successful completion of the given request and kind. */
    public static void assertSuccess(WorkCompletion wc, long wrId, WcOpcode opcode) {
        assertEquals(WcStatus.SUCCESS, wc.status(), () -> "status of " + wc);
        assertEquals(wrId, wc.wrId(), () -> "wrId of " + wc);
        assertEquals(opcode, wc.opcode(), () -> "opcode of " + wc);
    }
}
