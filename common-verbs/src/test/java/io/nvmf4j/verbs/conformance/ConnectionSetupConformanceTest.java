package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.ConnectionRejectedException;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connection-request and listener rules both providers share (io.nvmf4j.verbs.provider): a request is answered
 * once, an answer whose private data does not fit is refused before it counts, and closing a listener fails the
 * threads waiting in its accept at once.
 */
class ConnectionSetupConformanceTest {
    /** More private data than any transport carries (MPA: 512 bytes, rdma_conn_param: 255). */
    private static final int TOO_MUCH = 1024;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anAnswerWithTooMuchPrivateDataIsRefusedAndTheRequestCanStillBeAnsweredOnce(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            Future<RdmaConnection> connecting = bench.startConnect(QueuePairAttributes.defaults(), new byte[32]);
            ConnectRequest incoming = bench.listener().accept(TIMEOUT);
            assertNotNull(incoming, "connect request");

            AcceptParams oversized = new AcceptParams(bench.server().pd(), bench.server().cq(), bench.server().cq(),
                    QueuePairAttributes.defaults(), new byte[TOO_MUCH]);
            VerbsException accept = assertThrows(VerbsException.class, () -> incoming.accept(oversized));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, accept.code(), accept::getMessage);
            VerbsException reject = assertThrows(VerbsException.class, () -> incoming.reject(new byte[TOO_MUCH]));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, reject.code(), reject::getMessage);

            // neither counted as the answer: the request is still the application's to answer, once
            byte[] rejectData = {0x00, 0x00, 0x06, 0x00};
            incoming.reject(rejectData);
            ConnectionRejectedException rejected = assertThrows(ConnectionRejectedException.class,
                    () -> Loopback.await(connecting));
            assertArrayEquals(rejectData, provider.significant(rejected.privateData(), rejectData.length));
            VerbsException again = assertThrows(VerbsException.class, () -> incoming.reject(new byte[0]));
            assertEquals(VerbsErrorCode.INVALID_STATE, again.code(), again::getMessage);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingTheListenerFailsAWaitingAcceptWithClosedAtOnce(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider)) {
            CompletableFuture<ConnectRequest> waiting = new CompletableFuture<>();
            Thread.ofVirtual().name("waiting-accept").start(() -> {
                try {
                    waiting.complete(bench.listener().accept(TIMEOUT.multipliedBy(4)));
                } catch (Throwable t) {
                    waiting.completeExceptionally(t);
                }
            });
            Thread.sleep(200); // the thread is in accept()
            long start = System.nanoTime();
            bench.listener().close();
            ExecutionException ended = assertThrows(ExecutionException.class,
                    () -> waiting.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            long millis = (System.nanoTime() - start) / 1_000_000;
            VerbsException closed = assertInstanceOf(VerbsException.class, ended.getCause());
            assertEquals(VerbsErrorCode.CLOSED, closed.code(), closed::getMessage);
            assertTrue(millis < TIMEOUT.toMillis() / 2, "accept returned " + millis + " ms after the close");
        }
    }
}
