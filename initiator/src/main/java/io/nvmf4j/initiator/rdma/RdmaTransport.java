package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.HostQueue;
import io.nvmf4j.initiator.HostTransport;
import io.nvmf4j.initiator.QueueFailureListener;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsException;
import java.time.Duration;

/**
 * The NVMe/RDMA host transport (Linux {@code nvme_rdma_transport} in {@code drivers/nvme/host/rdma.c}): makes
 * {@link RdmaHostQueue}s. Public only as the module's {@link HostTransport} provider.
 */
public final class RdmaTransport implements HostTransport {

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public HostQueue newQueue(String name, QueueId qid, int queueSize, RdmaDevice device, ProtectionDomain pd,
            int bufferSize, int buffers, Duration commandTimeout, Duration spinBudget,
            QueueFailureListener failureListener) throws VerbsException {
        return new RdmaHostQueue(name, qid, queueSize, device, pd, bufferSize, buffers, commandTimeout, spinBudget,
                failureListener);
    }
}
