package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.QueuePairAttributes;

/**
 * The base of both providers' queue pairs: the attributes the queue pair was created with (what the device granted)
 * and the read depths its connection setup agreed on afterwards (the MPA v2 IRD/ORD words, RFC 6581 3, or the CM's
 * responder resources / initiator depth). The queues, the state machine and posting are the provider's.
 */
public abstract class ProviderQueuePair implements QueuePair {
    private volatile QueuePairAttributes attributes;

    protected ProviderQueuePair(QueuePairAttributes granted) {
        this.attributes = granted;
    }

    @Override
    public final QueuePairAttributes attributes() {
        return attributes;
    }

    /** Records the IRD/ORD the connection setup agreed on, before the connection is established. */
    public final void readDepths(int ird, int ord) {
        attributes = attributes.withReadDepths(ird, ord);
    }
}
