package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Steady-state Send/Receive and RDMA Write/Read allocate nothing per operation in softiwarp's own code: measured
 * with com.sun.management.ThreadMXBean#getThreadAllocatedBytes over the posting thread and every softiwarp thread
 * (JFR allocation samples showed the only remaining source: the JDK's IOUtil.write allocating a LinkedRunnable
 * and a Releaser, ~40 bytes, for each memory-segment-backed buffer in a gathering write).
 */
@Timeout(60)
class SteadyStateAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocatedBySoftiwarpAndMe(LoopbackPair p) {
        String a = ((SoftiwarpDevice) p.serverDevice).engineThreadNamePrefix();
        String b = ((SoftiwarpDevice) p.clientDevice).engineThreadNamePrefix();
        long total = THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(a) || t.getName().startsWith(b)) {
                total += THREADS.getThreadAllocatedBytes(t.threadId());
            }
        }
        return total;
    }

    @Test
    void pingPongSendReceiveWriteAndReadAllocateNothingPerOperation() throws Exception {
        try (LoopbackPair p = new LoopbackPair(null, null, new byte[0], new byte[0])) {
            SendWorkRequest send = new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND).local(p.clientMr, 0, 4096);
            SendWorkRequest reply = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND).local(p.serverMr, 0, 64);
            SendWorkRequest write = new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE).signaled(false)
                    .local(p.clientMr, 8192, 4096).remote(p.serverMr.address() + 8192, p.serverMr.rkey());
            SendWorkRequest read = new SendWorkRequest().wrId(4).opcode(SendOpcode.RDMA_READ)
                    .local(p.clientMr, 16384, 4096).remote(p.serverMr.address() + 16384, p.serverMr.rkey());
            ReceiveWorkRequest serverRecv = new ReceiveWorkRequest().wrId(10).local(p.serverMr, 65536, 4096);
            ReceiveWorkRequest clientRecv = new ReceiveWorkRequest().wrId(11).local(p.clientMr, 65536, 4096);
            WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
                    new WorkCompletion()};
            int warmup = 10_000;
            int measured = 3_000;
            long before = 0;
            long start = 0;
            for (int i = 0; i < warmup + measured; i++) {
                if (i == warmup) {
                    before = allocatedBySoftiwarpAndMe(p);
                    start = System.nanoTime();
                }
                p.server.queuePair().postReceive(serverRecv);
                p.client.queuePair().postReceive(clientRecv);
                p.client.queuePair().postSend(write);
                p.client.queuePair().postSend(send);
                expect(p.clientCq, wc, 1); // send done
                expect(p.serverCq, wc, 1); // receive
                p.server.queuePair().postSend(reply);
                expect(p.serverCq, wc, 1);
                expect(p.clientCq, wc, 1);
                p.client.queuePair().postSend(read);
                expect(p.clientCq, wc, 1);
            }
            long elapsed = System.nanoTime() - start;
            long perOp = (allocatedBySoftiwarpAndMe(p) - before) / measured;
            System.out.printf("softiwarp steady state: %d bytes allocated per iteration (send+recv+reply+write+read),"
                    + " %.1f us per iteration%n", perOp, elapsed / 1000.0 / measured);
            // 4 gathering writes with one segment-backed payload slice each: Send, reply Send, Write, Read Response
            long jdkScopeReleasers = 4 * 48;
            assertTrue(perOp <= jdkScopeReleasers, "allocates " + perOp + " bytes per iteration");
        }
    }

    private static void expect(io.nvmf4j.verbs.CompletionQueue cq, WorkCompletion[] wc, int n)
            throws InterruptedException {
        int got = cq.await(wc, 5, TimeUnit.SECONDS);
        assertEquals(n, got);
        assertEquals(WcStatus.SUCCESS, wc[0].status(), () -> wc[0].toString());
    }
}
