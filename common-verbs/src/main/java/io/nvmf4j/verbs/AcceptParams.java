package io.nvmf4j.verbs;

/**
 * What {@link ConnectRequest#accept} needs: the new queue pair's domain, completion queues and sizes, and the
 * private data of the reply. IRD/ORD are {@code qpAttributes.ird()/ord()}; the provider lowers them to what the
 * peer offers (RFC 6581 section 3).
 *
 * @param pd           protection domain of the new queue pair
 * @param sendCq       completion queue of the send queue
 * @param recvCq       completion queue of the receive queue
 * @param qpAttributes queue sizes and IRD/ORD
 * @param setup        run on the new queue pair before the peer may send (post receives there); never null
 * @param privateData  private data of the accept reply
 */
public record AcceptParams(
        ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, QueuePairAttributes qpAttributes,
        byte[] privateData, QueuePairSetup setup) implements ConnectionSetupParams {

    /** Without a setup hook (receives can then only be posted after the call returns). */
    public AcceptParams(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
            QueuePairAttributes qpAttributes, byte[] privateData) {
        this(pd, sendCq, recvCq, qpAttributes, privateData, QueuePairSetup.NONE);
    }

    public AcceptParams {
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
