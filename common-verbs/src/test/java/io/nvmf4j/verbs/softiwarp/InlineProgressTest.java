package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Inline progress: a consumer polling a completion queue reads its queue pairs' sockets itself while the progress
 * engine stays out of the way, and the engine takes the sockets back when the consumer stops polling - by blocking
 * in await (at once) or by going quiet (within SoftiwarpCompletionQueue.INLINE_ACTIVE_NANOS) - so that a peer's
 * one-sided operations never depend on the application polling.
 */
@Timeout(60)
class InlineProgressTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static SoftiwarpConfig config(boolean inline) {
        SoftiwarpConfig d = SoftiwarpConfig.fromSystemProperties();
        return new SoftiwarpConfig(d.engineSpinNanos(), d.cqSpinNanos(), 1, d.maxFpduPayload(), false, false,
                Duration.ofSeconds(5), d.copyThreshold(), inline);
    }

    private static Thread engineThread(SoftiwarpDevice device) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(device.engineThreadNamePrefix())) {
                return t;
            }
        }
        throw new AssertionError("no progress engine thread for " + device.engineThreadNamePrefix());
    }

    @Test
    void pollingConsumersCarryAPingPongWhileTheirEnginesPark() throws Exception {
        SoftiwarpDevice serverDevice = new SoftiwarpDevice(config(true));
        SoftiwarpDevice clientDevice = new SoftiwarpDevice(config(true));
        try (LoopbackPair p = new LoopbackPair(serverDevice, clientDevice, null, null, new byte[0], new byte[0])) {
            SendWorkRequest ping = new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND).local(p.clientMr, 0, 64);
            SendWorkRequest pong = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND).local(p.serverMr, 0, 64);
            ReceiveWorkRequest serverRecv = new ReceiveWorkRequest().wrId(10).local(p.serverMr, 4096, 64);
            ReceiveWorkRequest clientRecv = new ReceiveWorkRequest().wrId(11).local(p.clientMr, 4096, 64);
            WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
            Thread serverEngine = engineThread(serverDevice);
            Thread clientEngine = engineThread(clientDevice);
            int rounds = 20000; // a window of ~200 ms: one engine wake-up (a timer check) must not decide the ratio
            long engineCpuBefore = 0;
            long start = 0;
            for (int i = 0; i < rounds; i++) {
                if (i == 1000) { // warmed up: the engines have seen the consumers poll and parked
                    engineCpuBefore = THREADS.getThreadCpuTime(serverEngine.threadId())
                            + THREADS.getThreadCpuTime(clientEngine.threadId());
                    start = System.nanoTime();
                }
                // this one thread plays both consumers, polling (never awaiting): only inline progress moves data
                p.pollPingPong(serverRecv, clientRecv, ping, pong, wc);
            }
            long wallNanos = System.nanoTime() - start;
            long engineCpu = THREADS.getThreadCpuTime(serverEngine.threadId())
                    + THREADS.getThreadCpuTime(clientEngine.threadId()) - engineCpuBefore;
            // spinning engines would take about as much CPU as the wall time, twice; parked ones wake ~1000/s
            assertTrue(engineCpu < wallNanos / 4, "the progress engines used " + engineCpu / 1000 + " us of CPU in "
                    + wallNanos / 1000 + " us while both completion queues were polled");
        }
    }

    @Test
    void aPeersRdmaReadCompletesAfterTheOwnerStopsPollingWithoutAwaiting() throws Exception {
        SoftiwarpDevice serverDevice = new SoftiwarpDevice(config(true));
        SoftiwarpDevice clientDevice = new SoftiwarpDevice(config(true));
        try (LoopbackPair p = new LoopbackPair(serverDevice, clientDevice, null, null, new byte[0], new byte[0])) {
            LoopbackPair.fill(p.serverMr.segment(), 0, 8192, 9);
            WorkCompletion[] wc = {new WorkCompletion()};
            // the server's consumer polls for a while, so the server's engine leaves the socket to it ...
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            while (System.nanoTime() < until) {
                assertEquals(0, p.serverCq.poll(wc));
            }
            // ... then goes quiet without blocking in await; the client reads server memory: only the server's
            // engine can answer the Read Request now
            SendWorkRequest read = new SendWorkRequest().wrId(7).opcode(SendOpcode.RDMA_READ)
                    .local(p.clientMr, 0, 8192).remote(p.serverMr.address(), p.serverMr.rkey());
            p.client.queuePair().postSend(read);
            WorkCompletion done = LoopbackPair.awaitOne(p.clientCq);
            assertEquals(WcStatus.SUCCESS, done.status());
            assertEquals(WcOpcode.RDMA_READ, done.opcode());
            assertEquals(-1L, p.serverMr.segment().asSlice(0, 8192).mismatch(p.clientMr.segment().asSlice(0, 8192)));
        }
    }

    @Test
    void aConsumerBlockedInAwaitIsWokenByTheEngine() throws Exception {
        SoftiwarpDevice serverDevice = new SoftiwarpDevice(config(true));
        SoftiwarpDevice clientDevice = new SoftiwarpDevice(config(true));
        try (LoopbackPair p = new LoopbackPair(serverDevice, clientDevice, null, null, new byte[0], new byte[0])) {
            WorkCompletion[] wc = {new WorkCompletion()};
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            while (System.nanoTime() < until) {
                assertEquals(0, p.serverCq.poll(wc)); // inline-active first
            }
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            Thread sender = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(200); // long after the server's consumer has blocked in await
                    p.client.queuePair().postSend(new SendWorkRequest().wrId(4).opcode(SendOpcode.SEND)
                            .local(p.clientMr, 0, 64));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            long t0 = System.nanoTime();
            assertEquals(1, p.serverCq.await(wc, 5, TimeUnit.SECONDS));
            long waited = System.nanoTime() - t0;
            assertEquals(WcOpcode.RECV, wc[0].opcode());
            assertTrue(waited < TimeUnit.SECONDS.toNanos(2), "await returned after " + waited / 1_000_000 + " ms");
            sender.join();
        }
    }

    @Test
    void withInlineProgressOffTheEngineDoesEverything() throws Exception {
        SoftiwarpDevice serverDevice = new SoftiwarpDevice(config(false));
        SoftiwarpDevice clientDevice = new SoftiwarpDevice(config(false));
        try (LoopbackPair p = new LoopbackPair(serverDevice, clientDevice, null, null, new byte[0], new byte[0])) {
            p.server.queuePair().postReceive(new ReceiveWorkRequest().wrId(3).local(p.serverMr, 0, 64));
            p.client.queuePair().postSend(new SendWorkRequest().wrId(4).opcode(SendOpcode.SEND)
                    .local(p.clientMr, 0, 64));
            WorkCompletion[] wc = {new WorkCompletion()};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            int n = 0;
            while (n == 0 && System.nanoTime() < deadline) {
                n = p.serverCq.poll(wc);
            }
            assertEquals(1, n);
            assertEquals(WcOpcode.RECV, wc[0].opcode());
        }
    }
}
