package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.VerbsException;

import java.time.Duration;

/**
 * The base of both providers' listeners: {@link #accept} takes from the {@link AcceptQueue}, which the provider
 * fills (its listener thread or CM event thread) and closes with the listener. Binding, the transport's own
 * admission rules and the refusal on the wire are the provider's.
 *
 * @param <R> the provider's request type
 */
public abstract class ProviderListener<R extends ProviderConnectRequest> implements RdmaListener {
    /** Requests waiting for {@link #accept}, and those handed out but not answered yet. */
    protected final AcceptQueue<R> requests;

    /** @param backlog how many unanswered requests may wait (at least 1) */
    protected ProviderListener(Class<R> type, int backlog) {
        this.requests = new AcceptQueue<>(type, backlog, this::localAddress);
    }

    @Override
    public final ConnectRequest accept(Duration timeout) throws VerbsException, InterruptedException {
        return requests.take(timeout);
    }
}
