package io.nvmf4j.verbs.provider;

import io.nvmf4j.verbs.DisconnectEvent;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The end of a connection as {@link io.nvmf4j.verbs.RdmaConnection#onDisconnect} promises it in every provider:
 * recorded once (the first cause wins), each listener run once - on the thread that ends the connection, or at
 * once on the registering thread when it has ended already - outside any lock, and a listener that throws is
 * logged without keeping the others from running.
 */
public final class DisconnectListeners {
    private final Logger log;
    private final List<Consumer<DisconnectEvent>> listeners = new ArrayList<>();
    private DisconnectEvent ended;

    /** @param log the connection's logger, for listeners that throw */
    public DisconnectListeners(Logger log) {
        this.log = log;
    }

    /** Registers {@code listener}; runs it now if the connection has ended. */
    public void add(Consumer<DisconnectEvent> listener) {
        DisconnectEvent already;
        synchronized (this) {
            already = ended;
            if (already == null) {
                listeners.add(listener);
                return;
            }
        }
        listener.accept(already);
    }

    /** Records the end and runs the listeners; false (and nothing runs) if it had ended already. */
    public boolean end(DisconnectEvent event) {
        List<Consumer<DisconnectEvent>> toRun;
        synchronized (this) {
            if (ended != null) {
                return false;
            }
            ended = event;
            toRun = new ArrayList<>(listeners);
            listeners.clear();
        }
        for (Consumer<DisconnectEvent> listener : toRun) {
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                log.log(Level.WARNING, "disconnect listener failed", e);
            }
        }
        return true;
    }
}
