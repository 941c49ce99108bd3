package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.net.InetSocketAddress;

/**
 * What a connection request is in every provider: the peer's private data, addresses and read depths, and the
 * rule that it is answered exactly once ({@link ConnectRequest}: accept, reject, or - when the listener closes,
 * its queue is full or nobody answers in time - {@link #abandon()}). {@link #accept} and {@link #reject} check the
 * private-data limit first (too long: INVALID_ARGUMENT, and the request may still be answered), then claim the
 * answer (a second one: INVALID_STATE), then hand over to the provider's transport: the MPA reply or reject on the
 * socket (siw_accept/siw_reject), or {@code rdma_accept}/{@code rdma_reject}.
 */
public abstract class ProviderConnectRequest implements ConnectRequest {
    private final byte[] privateData;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final int peerIrd;
    private final int peerOrd;
    private final int maxReplyPrivateData;
    private final String replyCarrier;
    private final long createdNanos = System.nanoTime();
    private boolean answered;

    /**
     * @param privateData         the peer's private data (copied)
     * @param peerIrd             the peer's IRD, -1 if it did not say
     * @param peerOrd             the peer's ORD, -1 if it did not say
     * @param maxReplyPrivateData how much private data an accept or reject of this request carries
     * @param replyCarrier        what carries it, for the error message
     */
    protected ProviderConnectRequest(byte[] privateData, InetSocketAddress local, InetSocketAddress remote,
            int peerIrd, int peerOrd, int maxReplyPrivateData, String replyCarrier) {
        this.privateData = privateData.clone();
        this.local = local;
        this.remote = remote;
        this.peerIrd = peerIrd;
        this.peerOrd = peerOrd;
        this.maxReplyPrivateData = maxReplyPrivateData;
        this.replyCarrier = replyCarrier;
    }

    @Override
    public final byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public final InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public final InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public final int peerIrd() {
        return peerIrd;
    }

    @Override
    public final int peerOrd() {
        return peerOrd;
    }

    @Override
    public final RdmaConnection accept(AcceptParams params) throws VerbsException {
        PrivateData.checkLength(params.privateData(), maxReplyPrivateData, replyCarrier);
        answer();
        return acceptClaimed(params);
    }

    @Override
    public final void reject(byte[] privateData) throws VerbsException {
        byte[] data = privateData == null ? new byte[0] : privateData;
        PrivateData.checkLength(data, maxReplyPrivateData, replyCarrier);
        answer();
        rejectClaimed(data);
    }

    /**
     * Refuses the request without private data if nobody answered it yet; never waits for the peer. True if this
     * call answered it.
     */
    public final boolean abandon() {
        return abandon(null);
    }

    /** {@link #abandon()}, running {@code whenClaimed} (e.g. counting why) before the refusal leaves. */
    public final boolean abandon(Runnable whenClaimed) {
        synchronized (this) {
            if (answered) {
                return false;
            }
            answered = true;
        }
        if (whenClaimed != null) {
            whenClaimed.run();
        }
        refuseClaimed();
        return true;
    }

    /** Whether it was accepted, rejected or abandoned. */
    public final synchronized boolean answered() {
        return answered;
    }

    /** When the request was handed to the listener's queue (System.nanoTime). */
    public final long createdNanos() {
        return createdNanos;
    }

    private synchronized void answer() throws VerbsException {
        if (answered) {
            throw new VerbsException(VerbsErrorCode.INVALID_STATE, "the connection request from " + remote
                    + " was already answered");
        }
        answered = true;
    }

    /** Creates the queue pair and sends the accept; the request is answered already. */
    protected abstract RdmaConnection acceptClaimed(AcceptParams params) throws VerbsException;

    /** Sends the reject with {@code privateData} (checked, never null) and ends the transport. */
    protected abstract void rejectClaimed(byte[] privateData) throws VerbsException;

    /** Refuses without private data, best effort and without blocking on the peer, and ends the transport. */
    protected abstract void refuseClaimed();
}
