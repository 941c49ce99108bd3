package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostQueue;
import io.nvmf4j.initiator.HostTransport;
import io.nvmf4j.initiator.QueueFailureListener;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import java.time.Duration;

/**
 * The NVMe/TCP host transport (Linux {@code nvme_tcp_transport} in {@code drivers/nvme/host/tcp.c}): makes
 * {@link TcpHostQueue}s. It needs no RDMA device: the controller's buffers are plain native memory. Public only
 * as the module's {@link HostTransport} provider.
 */
public final class TcpTransport implements HostTransport {

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public boolean usesRdmaDevice() {
        return false;
    }

    @Override
    public HostQueue newQueue(String name, QueueId qid, int queueSize, ConnectOptions options, int bufferSize,
            int buffers, Duration spinBudget, QueueFailureListener failureListener) {
        return new TcpHostQueue(name, qid, queueSize, bufferSize, options.commandTimeout(), spinBudget,
                options.headerDigest(), options.dataDigest(), failureListener);
    }

    @Override
    public HostQueue newQueue(String name, QueueId qid, int queueSize, RdmaDevice device, ProtectionDomain pd,
            int bufferSize, int buffers, Duration commandTimeout, Duration spinBudget,
            QueueFailureListener failureListener) {
        throw new UnsupportedOperationException("NVMe/TCP queues use no RDMA device");
    }
}
