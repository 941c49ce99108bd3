package io.nvmf4j.verbs;

import java.util.Objects;

/** The component checks {@link AcceptParams} and {@link ConnectParams} share (their canonical constructors). */
final class SetupParamsChecks {
    private SetupParamsChecks() {
    }

    /** A null setup hook means none. */
    static QueuePairSetup setupOrNone(QueuePairSetup setup) {
        return setup == null ? QueuePairSetup.NONE : setup;
    }

    /** The queue pair needs a domain, both completion queues and its sizes. */
    static void requireQueuePairParts(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
            QueuePairAttributes qpAttributes) {
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(recvCq, "recvCq");
        Objects.requireNonNull(qpAttributes, "qpAttributes");
    }

    /** A private copy of the private data (null means none): the caller's array may change after the call. */
    static byte[] copyOf(byte[] privateData) {
        return privateData == null ? new byte[0] : privateData.clone();
    }
}
