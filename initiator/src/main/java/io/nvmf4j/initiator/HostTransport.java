package io.nvmf4j.initiator;

import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsException;
import java.time.Duration;

/**
 * A fabrics transport on the host side, which makes the {@link HostQueue}s of a controller (Linux
 * {@code struct nvmf_transport_ops}). Found through {@link java.util.ServiceLoader} by {@link Transports}, so this
 * package names no transport's implementation. Not part of the API a caller of the library uses.
 */
public interface HostTransport {

    /** The transport's name as the fabrics options give it (Linux {@code nvmf_transport_ops.name}): "rdma", "tcp". */
    String name();

    /**
     * Whether the controller opens an RDMA device and a protection domain for this transport's queues (and the
     * callers' buffers are registered in it): the queues are then made by the {@code newQueue} that takes them,
     * otherwise by {@link #newQueue(String, QueueId, int, ConnectOptions, int, int, Duration,
     * QueueFailureListener)} and buffers are plain native memory.
     */
    default boolean usesRdmaDevice() {
        return true;
    }

    /**
     * A queue of a transport that needs no RDMA device ({@link #usesRdmaDevice()} false), its memory allocated;
     * nothing is sent until {@link HostQueue#connect}. The options carry what the transport negotiates itself
     * (NVMe/TCP digests).
     */
    default HostQueue newQueue(String name, QueueId qid, int queueSize, ConnectOptions options, int bufferSize,
            int buffers, Duration spinBudget, QueueFailureListener failureListener) throws NvmfException {
        throw new UnsupportedOperationException(name() + " queues need an RDMA device and protection domain");
    }

    /**
     * A queue with its memory allocated; nothing is sent until {@link HostQueue#connect}.
     *
     * @param queueSize  entries; at most queueSize - 1 requests are outstanding
     * @param bufferSize bytes per bounce buffer
     * @param buffers    bounce buffers
     */
    HostQueue newQueue(String name, QueueId qid, int queueSize, RdmaDevice device, ProtectionDomain pd,
            int bufferSize, int buffers, Duration commandTimeout, Duration spinBudget,
            QueueFailureListener failureListener) throws VerbsException;
}
