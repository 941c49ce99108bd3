package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.protocol.rdma.RdmaCmRejectStatus;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.target.Port;
import java.lang.foreign.MemorySegment;

/**
 * Validates the private data of an RDMA_CM connect request and sizes the queue pair from it, like
 * {@code nvmet_rdma_parse_cm_connect_req()}: our receive queue holds HSQSIZE + 1 command capsules (the host's
 * whole submission queue), our send side answers into the host's HRQSIZE receive buffers. Each refusal names the
 * binding's reject status (NVMe RDMA Transport Specification, "RDMA_CM_REJECT Private Data"). Runs on the
 * listener's thread, once per connect request.
 */
final class CmConnectCheck {

    /** Linux NVME_AQ_DEPTH: the admin queue has at most 32 entries. */
    public static final int ADMIN_QUEUE_MAX_ENTRIES = QueueLimits.ADMIN_QUEUE_SIZE;

    private CmConnectCheck() {
    }

    /** The outcome: a queue sizing to accept with, or a reject status with a sentence for the log. */
    public sealed interface Outcome permits Accepted, Rejected {
    }

    /**
     * @param request          the decoded private data
     * @param recvQueueEntries command capsules we pre-post receives for (HSQSIZE + 1); also the CRQSIZE we answer
     * @param hostRecvEntries  responses the host can take at once (HRQSIZE)
     */
    public record Accepted(RdmaCmRequest request, int recvQueueEntries, int hostRecvEntries) implements Outcome {
        public int qid() {
            return request.qid().value();
        }
    }

    public record Rejected(RdmaCmRejectStatus status, String reason) implements Outcome {
    }

    public static Outcome check(byte[] privateData, Port port) {
        if (privateData == null || privateData.length < RdmaCmRequest.SIZE) {
            return new Rejected(RdmaCmRejectStatus.INVALID_LEN, "private data of "
                    + (privateData == null ? 0 : privateData.length) + " bytes, the connect request needs "
                    + RdmaCmRequest.SIZE);
        }
        RdmaCmRequest req;
        try {
            req = RdmaCmRequest.decode(MemorySegment.ofArray(privateData));
        } catch (IllegalArgumentException e) {
            return new Rejected(RdmaCmRejectStatus.INVALID_LEN, e.getMessage());
        }
        if (req.recfmt() != RdmaCmRequest.RECFMT_1_0) {
            return new Rejected(RdmaCmRejectStatus.INVALID_RECFMT, "record format " + req.recfmt() + ", expected 0");
        }
        int qid = req.qid().value();
        if (qid == 0xFFFF) {
            return new Rejected(RdmaCmRejectStatus.INVALID_QID, "queue ID FFFFh");
        }
        int entries = req.hsqsize() + 1;
        if (req.hsqsize() == 0) {
            // a one-entry queue cannot hold a command (NVMe queues have at least two entries)
            return new Rejected(RdmaCmRejectStatus.INVALID_HSQSIZE, "HSQSIZE 0 (a queue of one entry)");
        }
        if (qid == 0 && entries > ADMIN_QUEUE_MAX_ENTRIES) {
            return new Rejected(RdmaCmRejectStatus.INVALID_HSQSIZE, "admin queue of " + entries
                    + " entries, at most " + ADMIN_QUEUE_MAX_ENTRIES);
        }
        if (qid != 0 && entries > port.maxQueueSize()) {
            return new Rejected(RdmaCmRejectStatus.INVALID_HSQSIZE, "I/O queue of " + entries + " entries, at most "
                    + port.maxQueueSize());
        }
        if (req.hrqsize() < entries) {
            // the host must be able to take a response for every command it can have outstanding
            return new Rejected(RdmaCmRejectStatus.INVALID_HRQSIZE, "HRQSIZE " + req.hrqsize()
                    + " is less than the " + entries + " commands the host may submit");
        }
        return new Accepted(req, entries, req.hrqsize());
    }
}
