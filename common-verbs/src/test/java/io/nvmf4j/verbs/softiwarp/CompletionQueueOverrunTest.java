package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendWorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A receive completion that does not fit its CQ ends the connection instead of vanishing silently. */
@Timeout(30)
class CompletionQueueOverrunTest {
    @Test
    void receivesBeyondTheCompletionQueueCapacityEndTheConnection() throws Exception {
        try (LoopbackPair p = new LoopbackPair(null, null, new byte[0], new byte[0])) {
            CompletionQueue tiny = p.serverDevice.createCompletionQueue(2);
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return p.listener.accept(Duration.ofSeconds(5)).accept(new AcceptParams(p.serverPd, tiny, tiny,
                            QueuePairAttributes.defaults(), new byte[0], qp -> {
                                for (int i = 0; i < 4; i++) {
                                    qp.postReceive(new ReceiveWorkRequest().wrId(i).local(p.serverMr, i * 64L, 64));
                                }
                            }));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            try (RdmaConnection c = p.clientDevice.connectionManager().connect(p.listener.localAddress(),
                    new ConnectParams(p.clientPd, p.clientCq, p.clientCq, QueuePairAttributes.defaults(), new byte[0]),
                    Duration.ofSeconds(5));
                 RdmaConnection s = accepted.get(5, TimeUnit.SECONDS)) {
                for (int i = 0; i < 3; i++) {
                    c.queuePair().postSend(new SendWorkRequest().wrId(10 + i).local(p.clientMr, 0, 8));
                }
                DisconnectEvent end = SoftiwarpLoopbackTest.waitForEnd(s);
                assertEquals(DisconnectEvent.Cause.TRANSPORT_ERROR, end.cause());
                assertTrue(end.detail().contains("overrun"), end.detail());
                assertTrue(tiny.overflowed());
            }
        }
    }
}
