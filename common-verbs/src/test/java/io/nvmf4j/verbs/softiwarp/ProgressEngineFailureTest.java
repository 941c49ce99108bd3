package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue F9: the progress engine is one thread for every connection of a device; an exception while serving one
 * connection must end that connection only (counted), never the thread - later connections keep working.
 */
@Timeout(60)
class ProgressEngineFailureTest {

    /**
     * The race of F9 made deterministic: a key that says it is valid and is cancelled by the time the engine
     * calls interestOps (the socket was closed by another thread in between).
     */
    private static final class CancelledUnderfootKey extends SelectionKey {
        private final SelectionKey real;

        CancelledUnderfootKey(SelectionKey real) {
            this.real = real;
        }

        @Override
        public SelectableChannel channel() {
            return real.channel();
        }

        @Override
        public Selector selector() {
            return real.selector();
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public void cancel() {
            real.cancel();
        }

        @Override
        public int interestOps() {
            throw new CancelledKeyException();
        }

        @Override
        public SelectionKey interestOps(int ops) {
            throw new CancelledKeyException();
        }

        @Override
        public int readyOps() {
            throw new CancelledKeyException();
        }
    }

    @Test
    void aKeyCancelledUnderTheEngineEndsOnlyItsConnectionAndLaterConnectionsStillWork() throws Exception {
        SoftiwarpDevice clientDevice = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties());
        try (LoopbackPair p = new LoopbackPair(new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties()),
                clientDevice, null, null, new byte[0], new byte[0])) {
            SoftiwarpQueuePair victim = (SoftiwarpQueuePair) p.client.queuePair();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (victim.engineWatch.selectionKey == null && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            // the engine re-arms a muted key with interestOps(OP_READ) once nobody polls the CQ inline
            victim.engineWatch.selectionKey = new CancelledUnderfootKey(victim.engineWatch.selectionKey);
            ProgressEngine engine = victim.engine;
            // these fields belong to the engine thread: it may have read the old value of muted and cleared
            // it after our write, and then sleep in select(), so repeat the setup and the wake-up until it trips
            long tripDeadline = System.nanoTime() + 20_000_000_000L;
            while (p.client.disconnectEvent() == null && System.nanoTime() < tripDeadline) {
                victim.engineWatch.muted = true;
                engine.wakeup();
                Thread.sleep(20);
            }

            DisconnectEvent end = SoftiwarpLoopbackTest.waitForEnd(p.client);
            assertEquals(DisconnectEvent.Cause.TRANSPORT_ERROR, end.cause(), end.detail());
            assertTrue(end.detail().contains("CancelledKeyException"), end.detail());
            assertEquals(1, clientDevice.rejectedPeers().count(RejectedPeers.Reason.ENGINE_FAILURE));
            Thread engineThread = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith(clientDevice.engineThreadNamePrefix())).findFirst()
                    .orElse(null);
            assertTrue(engineThread != null && engineThread.isAlive(), "the engine thread after the failure");

            // a later connection of the same device (same engine) still moves data both ways
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    ConnectRequest req = p.listener.accept(Duration.ofSeconds(5));
                    return req.accept(new AcceptParams(p.serverPd, p.serverCq, p.serverCq,
                            QueuePairAttributes.defaults(), new byte[0], null));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            try (RdmaConnection client = clientDevice.connectionManager().connect(p.listener.localAddress(),
                    new ConnectParams(p.clientPd, p.clientCq, p.clientCq, QueuePairAttributes.defaults(),
                            new byte[0], null), Duration.ofSeconds(5));
                 RdmaConnection server = accepted.get(5, TimeUnit.SECONDS)) {
                drain(p);
                client.queuePair().postReceive(new ReceiveWorkRequest().wrId(7).local(p.clientMr, 0, 64));
                server.queuePair().postSend(new SendWorkRequest().wrId(8).opcode(SendOpcode.SEND)
                        .local(p.serverMr, 0, 64));
                WorkCompletion sent = LoopbackPair.awaitOne(p.serverCq);
                assertEquals(WcStatus.SUCCESS, sent.status(), sent::toString);
                WorkCompletion received = LoopbackPair.awaitOne(p.clientCq);
                assertEquals(7, received.wrId(), received::toString);
                assertEquals(WcStatus.SUCCESS, received.status(), received::toString);
            }
        }
    }

    /** Takes the flush completions of the ended connection off the CQs. */
    private static void drain(LoopbackPair p) {
        WorkCompletion[] wc = {new WorkCompletion()};
        while (p.clientCq.poll(wc) > 0) {
            // flushed
        }
        while (p.serverCq.poll(wc) > 0) {
            // flushed
        }
    }
}
