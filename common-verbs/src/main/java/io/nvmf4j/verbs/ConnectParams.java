package io.nvmf4j.verbs;

/**
 * What {@link ConnectionManager#connect} needs ({@code rdma_create_qp} + {@code rdma_conn_param}). The rdma_cm
 * {@code responder_resources} and {@code initiator_depth} are {@code qpAttributes.ird()} and
 * {@code qpAttributes.ord()}.
 *
 * @param pd           the protection domain of the new queue pair
 * @param sendCq       completion queue of the send queue
 * @param recvCq       completion queue of the receive queue (may be the same as sendCq)
 * @param qpAttributes queue sizes and IRD/ORD wanted
 * @param setup        run on the new queue pair before the peer may send (post receives there); never null
 * @param privateData  private data of the connection request (at most 512 - 4 bytes for MPA v2, RFC 6581)
 */
public record ConnectParams(
        ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, QueuePairAttributes qpAttributes,
        byte[] privateData, QueuePairSetup setup) implements ConnectionSetupParams {

    /** Without a setup hook (receives can then only be posted after the call returns). */
    public ConnectParams(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
            QueuePairAttributes qpAttributes, byte[] privateData) {
        this(pd, sendCq, recvCq, qpAttributes, privateData, QueuePairSetup.NONE);
    }

    public ConnectParams {
        setup = SetupParamsChecks.setupOrNone(setup);
        SetupParamsChecks.requireQueuePairParts(pd, sendCq, recvCq, qpAttributes);
        privateData = SetupParamsChecks.copyOf(privateData);
    }

    /** The private data (a copy). */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
