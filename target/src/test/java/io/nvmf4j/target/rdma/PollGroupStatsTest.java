package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.testsupport.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's view of the poll groups ({@link RdmaTransport#pollGroupStats()}): busy polls grow with traffic,
 * the queues served are counted, and the buffer pool shows the bytes a request holds while its data is in flight
 * (an RDMA Read the host never answers, through a relay that stops the target's bytes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PollGroupStatsTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void trafficShowsAsBusyPollsQueuesAndBufferUse() throws Exception {
        RdmaTransportOptions options = RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(4L << 20).completionQueueEntries(4096)
                .readTimeout(Duration.ofSeconds(30)).build();
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir, 8, TransportObserver.NONE, options)) {
            List<PollGroupStats> idle = fixture.transport.pollGroupStats();
            assertEquals(1, idle.size());
            PollGroupStats before = idle.get(0);
            assertEquals(0, before.group());
            assertEquals(0, before.queues());
            assertEquals(0, before.bufferBytesUsed(), "nothing holds the pool before any host");
            assertTrue(before.bufferBytesTotal() >= 4L << 20, "pool of " + before.bufferBytesTotal() + " bytes");

            try (ScriptedRdmaHost admin = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
                ScriptedRdmaHost.Response r = admin.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                        RdmaTargetFixture.HOST);
                assertEquals(0, r.status());
                admin.enable();
                int cntlid = r.cqe().dw0() & 0xFFFF;
                try (ScriptedRdmaHost io = ScriptedRdmaHost.connect(fixture.address, 1, 32)) {
                    assertEquals(0, io.connectCommand(1, 31, cntlid, RdmaTargetFixture.SUBNQN,
                            RdmaTargetFixture.HOST).status());
                    for (int i = 0; i < 200; i++) {
                        SubmissionQueueEntry w = io.readWrite(0x01, 1, 0, 8);
                        io.keyed(w, 0, 4096, false);
                        assertEquals(0, io.execute().status());
                    }
                    PollGroupStats busy = fixture.transport.pollGroupStats().get(0);
                    assertEquals(2, busy.queues(), "admin and I/O queue");
                    // each write is a receive, an RDMA Read and a Send completion: at least one busy poll each
                    assertTrue(busy.busyPolls() - before.busyPolls() >= 200, "busy polls " + before.busyPolls()
                            + " -> " + busy.busyPolls());
                    assertTrue(busy.idlePolls() >= before.idlePolls());
                    // a write's buffer goes back to the pool when its response Send completes, which the target
                    // may reap after the host has already seen that response: wait for it, do not race it
                    await(() -> fixture.transport.pollGroupStats().get(0).bufferBytesUsed() == 0,
                            "every write gave its buffer back: " + fixture.transport.pollGroupStats());

                    // a 1 MiB write whose RDMA Read never reaches the host holds 1 MiB of the pool
                    try (FreezingTcpProxy relay = new FreezingTcpProxy(fixture.address);
                         ScriptedRdmaHost stuck = ScriptedRdmaHost.connect(relay.address(), 2, 32)) {
                        assertEquals(0, stuck.connectCommand(2, 31, cntlid, RdmaTargetFixture.SUBNQN,
                                RdmaTargetFixture.HOST).status());
                        relay.freezeTargetToHost();
                        SubmissionQueueEntry w = stuck.readWrite(0x01, 1, 0, MIB / 512);
                        stuck.keyed(w, 0, MIB, false);
                        stuck.send(64);
                        await(() -> fixture.transport.pollGroupStats().get(0).bufferBytesUsed() == MIB,
                                "1 MiB of the pool in use: " + fixture.transport.pollGroupStats());
                        assertEquals(3, fixture.transport.pollGroupStats().get(0).queues());
                    }
                }
            }
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(condition, Duration.ofSeconds(10), what);
    }
}
