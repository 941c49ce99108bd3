package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmfConnectException;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectionRejectedException;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * Connection setup of one queue, as Linux {@code nvme_rdma_create_queue_ib()} + {@code nvme_rdma_route_resolved()}:
 * a CQ for sends and receives, a QP sized for the queue, the 32-byte NVMe RDMA CM request (RECFMT 0, QID, HRQSIZE,
 * HSQSIZE; NVMe-oF 1.1, 7.3.3) as private data, receives posted before the request goes out; a reject is decoded
 * into its {@code NVME_RDMA_CM_*} status ({@code nvme_rdma_conn_rejected()}); the accept's CRQSIZE bounds the depth.
 */
final class QueueConnector {

    private static final Logger LOG = System.getLogger(QueueConnector.class.getName());

    /** An established connection, its CQ, and the CRQSIZE the target accepted (the request's size if absent). */
    record Connected(RdmaConnection connection, CompletionQueue cq, int crqsize) {
    }

    private QueueConnector() {
    }

    static Connected connect(String name, QueueId qid, int queueSize, int sqsize, RdmaDevice device,
            ProtectionDomain pd, ResponseBuffers responses, InetSocketAddress address, Duration timeout)
            throws NvmfConnectException {
        RdmaCmRequest request = RdmaCmRequest.of(qid, queueSize, sqsize);
        CompletionQueue cq = null;
        RdmaConnection conn;
        try {
            cq = device.createCompletionQueue(queueSize * 2 + 4);
            int ird = Math.max(1, Math.min(16, device.attributes().maxQpRdAtom()));
            QueuePairAttributes attributes = new QueuePairAttributes(queueSize + 1, queueSize, 2, 1, 0, ird,
                    Math.max(1, Math.min(16, device.attributes().maxQpInitRdAtom())));
            ConnectParams params = new ConnectParams(pd, cq, cq, attributes, request.toBytes(), responses::postAll);
            conn = device.connectionManager().connect(address, params, timeout);
        } catch (ConnectionRejectedException e) {
            closeQuietly(cq);
            throw new NvmfConnectException(name + ": " + address + " rejected the connection: " + rejectReason(e), e);
        } catch (VerbsException e) {
            closeQuietly(cq);
            String why = e.code() == VerbsErrorCode.TIMED_OUT
                    ? "no answer within " + timeout.toMillis() + " ms"
                    : e.getMessage();
            throw new NvmfConnectException(name + ": cannot connect to " + address + ": " + why, e);
        }
        int crqsize = queueSize;
        byte[] accept = conn.peerPrivateData();
        if (accept.length >= RdmaCmAccept.SIZE) {
            try {
                crqsize = RdmaCmAccept.decode(MemorySegment.ofArray(accept)).crqsize();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, name + ": ignoring malformed RDMA CM accept private data: " + e.getMessage());
            }
        }
        return new Connected(conn, cq, crqsize);
    }

    /** Names the reject status like Linux {@code nvme_rdma_cm_msg()}: "NVME_RDMA_CM_INVALID_HSQSIZE (4): ...". */
    static String rejectReason(ConnectionRejectedException e) {
        byte[] data = e.privateData();
        if (data.length >= RdmaCmReject.SIZE) {
            try {
                RdmaCmReject reject = RdmaCmReject.decode(MemorySegment.ofArray(data));
                return reject.status()
                        .map(s -> "NVME_RDMA_CM_" + s.name() + " (status " + s.value() + ", " + s.message() + ")")
                        .orElse("NVMe RDMA CM status " + reject.sts() + " (unknown)");
            } catch (RuntimeException malformed) {
                return e.getMessage() + " (malformed reject private data)";
            }
        }
        return e.getMessage();
    }

    static void closeQuietly(CompletionQueue q) {
        if (q != null) {
            try {
                q.close();
            } catch (RuntimeException ignored) {
                // already broken
            }
        }
    }
}
