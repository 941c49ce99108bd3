package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.MalformedStructureException;

/**
 * The Number of Queues feature value (FID 07h; NVMe Base 2.0, 5.27.1.5): CDW11 of Set Features and DW0 of the
 * completion carry NSQR (bits 15:0) and NCQR (bits 31:16), each a 0's based count of I/O queues excluding the admin
 * queue. A raw value of 65535 is invalid ("Invalid Field in Command"). This record holds the 1-based counts.
 */
public record NumberOfQueues(int submissionQueues, int completionQueues) {

    /** 65535 0's based is 65536 queues, which the spec forbids. */
    public static final int MAX_QUEUES = 65535;

    public NumberOfQueues {
        if (submissionQueues < 1 || submissionQueues > MAX_QUEUES) {
            throw new IllegalArgumentException("I/O submission queue count " + submissionQueues + " outside 1..65535");
        }
        if (completionQueues < 1 || completionQueues > MAX_QUEUES) {
            throw new IllegalArgumentException("I/O completion queue count " + completionQueues + " outside 1..65535");
        }
    }

    /** Decodes CDW11 / DW0; fails on the reserved raw value FFFFh in either half. */
    public static NumberOfQueues fromDword(int dword) {
        int nsqr = dword & 0xFFFF;
        int ncqr = dword >>> 16;
        if (nsqr == 0xFFFF || ncqr == 0xFFFF) {
            throw new MalformedStructureException(String.format(
                    "Number of Queues value %08xh: NSQR/NCQR of 65535 is invalid", dword));
        }
        return new NumberOfQueues(nsqr + 1, ncqr + 1);
    }

    public int toDword() {
        return ((completionQueues - 1) << 16) | (submissionQueues - 1);
    }

    @Override
    public String toString() {
        return "NumberOfQueues[sq=" + submissionQueues + " cq=" + completionQueues + "]";
    }
}
