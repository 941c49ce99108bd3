package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.KeepAliveCommand;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The keep-alive timer (NVMe Base 2.0, 3.9; nvmet_keep_alive_timer()): silence tears the controller down. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KeepAliveTest {

    private final TargetFixture fx = new TargetFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void silentHostLosesItsControllerWhenTheKeepAliveTimerExpires() throws Exception {
        LoopHost host = fx.host();
        assertEquals(0, host.connectAdmin(SUBNQN, 1000).cqe().statusField());
        host.setProperty(0x14, LoopHost.CC_ENABLE_NVM);
        assertEquals(0, host.connectIo(SUBNQN, 1, 31).cqe().statusField());
        LoopTransportQueue admin = host.admin.transport();
        LoopTransportQueue io = host.ioQueues.get(1).transport();
        long start = System.nanoTime();

        assertTrue(admin.disconnected.await(5, TimeUnit.SECONDS), "admin queue told to disconnect");
        assertTrue(io.disconnected.await(1, TimeUnit.SECONDS), "I/O queue told to disconnect");
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(elapsedMs >= 900, "not before KATO: " + elapsedMs + " ms");
        assertEquals(2, host.controller().csts() & 2, "CSTS.CFS");
        assertEquals(1, admin.disconnects.get(), "told once");

        // the transport reacts by destroying its queues: the controller and its ID are gone
        Controller c = host.controller();
        host.admin.sq().destroy();
        host.ioQueues.get(1).sq().destroy();
        assertTrue(c.isReleased());
        assertTrue(fx.subsystem.controllers().isEmpty());
    }

    @Test
    void keepAliveCommandsAndOtherTrafficKeepTheControllerAlive() throws Exception {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 1000);
        host.setProperty(0x14, LoopHost.CC_ENABLE_NVM);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2600);
        int i = 0;
        while (System.nanoTime() < end) {
            if (i++ % 2 == 0) {
                SubmissionQueueEntry ka = SubmissionQueueEntry.allocate();
                KeepAliveCommand.create(ka);
                assertEquals(0, host.submit(host.admin, ka).cqe().statusField());
            } else {
                host.getProperty(0x1C, false); // any command counts (TBKAS)
            }
            Thread.sleep(300);
        }
        assertEquals(0, host.admin.transport().disconnects.get(), "kept alive for 2.6 x KATO");
        assertEquals(1, host.controller().csts() & 1);
        // then silence
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
    }

    @Test
    void zeroKatoMeansNoTimer() throws Exception {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        assertTrue(!host.admin.transport().disconnected.await(1500, TimeUnit.MILLISECONDS));
        assertEquals(0, host.controller().keepAliveTimeoutSeconds());
    }
}
