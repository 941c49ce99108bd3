package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.QueuePairState;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.provider.DisconnectListeners;

import java.net.InetSocketAddress;
import java.util.function.Consumer;
import java.lang.System.Logger;

/** An established softiwarp connection: its queue pair and the end-of-connection listeners. */
final class SoftiwarpConnection implements RdmaConnection {
    private static final Logger LOG = System.getLogger(SoftiwarpConnection.class.getName());
    private static final PeerLog END_LOG = new PeerLog(LOG);

    private final SoftiwarpQueuePair qp;
    private final byte[] peerPrivateData;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final DisconnectListeners listeners = new DisconnectListeners(LOG);

    SoftiwarpConnection(SoftiwarpQueuePair qp, byte[] peerPrivateData, InetSocketAddress local,
                        InetSocketAddress remote) {
        this.qp = qp;
        this.peerPrivateData = peerPrivateData.clone();
        this.local = local;
        this.remote = remote;
        qp.onEnd(this::ended);
    }

    private void ended(DisconnectEvent event) {
        if (listeners.end(event) && event.cause() != DisconnectEvent.Cause.LOCAL_DISCONNECT) {
            // once per connection, rate-limited: a flood of hostile connections must not flood the log
            END_LOG.info("softiwarp QP {0} to {1} ended: {2}", qp.number(), remote, event.detail());
        }
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public boolean isConnected() {
        return qp.state() == QueuePairState.RTS;
    }

    @Override
    public void onDisconnect(Consumer<DisconnectEvent> listener) {
        listeners.add(listener);
    }

    @Override
    public DisconnectEvent disconnectEvent() {
        DisconnectEvent e = qp.endEvent();
        return e;
    }

    @Override
    public void disconnect() {
        qp.disconnect();
    }

    @Override
    public void close() {
        qp.close();
    }

    @Override
    public String toString() {
        return "softiwarp connection " + local + " -> " + remote + " (QP " + qp.number() + ")";
    }
}
