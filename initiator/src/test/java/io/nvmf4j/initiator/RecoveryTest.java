package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.fake.ScriptedController;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.AdminOpcode;
import io.nvmf4j.protocol.fabrics.ControllerProperty;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Keep-alive, reconnect after connection loss, ctrl-loss-tmo, back-pressure under a stalled controller. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecoveryTest {

    private ScriptedController target;
    private NvmeController controller;

    private ConnectOptions.Builder options(ScriptedController.Script script) throws Exception {
        target = new ScriptedController(script);
        return ConnectOptions.builder(target.address(), script.subsystem).host(HostIdentity.generate())
                .provider("softiwarp").ioQueues(1).queueSize(16).commandTimeout(Duration.ofSeconds(3));
    }

    @AfterEach
    void tearDown() {
        if (controller != null) {
            controller.close();
        }
        if (target != null) {
            target.close();
        }
    }

    @Test
    void keepAliveGoesOutEveryHalfKato() throws Exception {
        controller = NvmeController.connect(options(new ScriptedController.Script())
                .keepAliveTimeout(Duration.ofMillis(400)).build());
        // KATO in the admin Connect, in milliseconds (SQE bytes 51:48)
        byte[] connect = target.received.get(0).sqe();
        assertEquals(400, (connect[48] & 0xFF) | (connect[49] & 0xFF) << 8);
        Thread.sleep(1100);
        int sent = target.keepAlives.get();
        assertTrue(sent >= 2 && sent <= 8, "keep alives in 1.1 s at 200 ms (5 expected): " + sent);
    }

    /**
     * A Keep Alive whose timer passed the state check just as the controller was closed: close waits for it, so it
     * reaches the controller before the shutdown's Property Set, never after (nvmet rejects it there and its TCP
     * transport logs an error). The timer is held between its check and its submission until the shutdown shows up
     * at the target, or 1 s: without the wait in close the shutdown comes first.
     */
    @Test
    void aKeepAliveAlreadyOnItsWayGoesBeforeTheShutdownNotAfter() throws Exception {
        controller = NvmeController.connect(options(new ScriptedController.Script())
                .keepAliveTimeout(Duration.ofMillis(200)).build());
        CountDownLatch held = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        controller.keepAlive().beforeSubmit(() -> {
            if (first.getAndSet(false)) {
                held.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (shutdownAt(adminCommands()) < 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }
        });
        assertTrue(held.await(5, TimeUnit.SECONDS), "no Keep Alive within 5 s at a KATO of 200 ms");
        controller.close();
        List<ScriptedController.Received> admin = adminCommands();
        int shutdown = shutdownAt(admin);
        assertTrue(shutdown >= 0, "the close sent no Property Set with CC.SHN");
        for (int i = shutdown + 1; i < admin.size(); i++) {
            assertTrue(admin.get(i).opcode() != AdminOpcode.KEEP_ALIVE.code(),
                    "a Keep Alive reached the controller after the shutdown's Property Set (command " + i + ")");
        }
    }

    private List<ScriptedController.Received> adminCommands() {
        return target.received.stream().filter(r -> r.qid() == 0).toList();
    }

    /** The index of the Property Set of CC with a shutdown notification (CC.SHN, bits 15:14), or -1. */
    private static int shutdownAt(List<ScriptedController.Received> admin) {
        for (int i = 0; i < admin.size(); i++) {
            MemorySegment sqe = MemorySegment.ofArray(admin.get(i).sqe());
            if (admin.get(i).opcode() == FABRICS_OPCODE
                    && Wire.u8(sqe, 4) == FabricsCommandType.PROPERTY_SET.value()
                    && Wire.u32(sqe, 44) == ControllerProperty.CC.offset()
                    && ((Wire.u32(sqe, 48) >>> 14) & 3) != 0) {
                return i;
            }
        }
        return -1;
    }

    private static final int FABRICS_OPCODE = 0x7F;

    @Test
    void ioInFlightWhenTheConnectionDropsCompletesAfterReconnect() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        controller = NvmeController.connect(options(script).reconnectDelay(Duration.ofMillis(200))
                .ctrlLossTimeout(Duration.ofSeconds(20)).build());
        Namespace ns = controller.firstNamespace();
        byte[] data = new byte[4096];
        java.util.Arrays.fill(data, (byte) 0x5A);
        script.closeAfterFirstIo = true; // the controller drops every connection when this write arrives
        ns.write(64, 8, MemorySegment.ofArray(data));
        awaitLive();
        byte[] back = new byte[4096];
        ns.read(64, 8, MemorySegment.ofArray(back));
        assertArrayEquals(data, back);
        assertTrue(target.cmRequests.size() >= 4, "admin and I/O queue connected twice: " + target.cmRequests.size());
    }

    /**
     * A command re-sent after a reconnect may complete on the new I/O queue a moment before the reconnect sequence
     * marks the controller LIVE (the queues are live first): wait for LIVE, bounded.
     */
    private void awaitLive() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (controller.state() != ControllerState.LIVE && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(ControllerState.LIVE, controller.state());
    }

    @Test
    void targetKilledAndRestartedIoIssuedDuringTheOutageCompletesOnTheNewTarget() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        controller = NvmeController.connect(options(script).reconnectDelay(Duration.ofMillis(300))
                .ctrlLossTimeout(Duration.ofSeconds(20)).build());
        Namespace ns = controller.firstNamespace();
        int port = target.address().getPort();
        target.close(); // the target dies: every connection ends
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (controller.state() != ControllerState.RECONNECTING && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(ControllerState.RECONNECTING, controller.state());
        byte[] data = new byte[8192];
        new java.util.Random(3).nextBytes(data);
        CompletableFuture<Void> write = ns.writeAsync(200, 16, MemorySegment.ofArray(data));
        Thread.sleep(500);
        assertTrue(!write.isDone(), "the write waits for the reconnect");
        target = new ScriptedController(script, port); // the target comes back on the same port
        write.get(15, TimeUnit.SECONDS);
        awaitLive();
        assertArrayEquals(data, target.media().asSlice(200 * 512, data.length)
                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void afterCtrlLossTimeoutQueuedIoFailsWithAClearError() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        controller = NvmeController.connect(options(script).reconnectDelay(Duration.ofMillis(200))
                .ctrlLossTimeout(Duration.ofMillis(800)).build());
        Namespace ns = controller.firstNamespace();
        script.rejectStatus = 6; // every reconnect is refused (NO_RSC)
        target.dropConnections();
        CompletableFuture<Void> read = ns.readAsync(0, 1, MemorySegment.ofArray(new byte[512]));
        ExecutionException e = assertThrows(ExecutionException.class, () -> read.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof NvmfControllerLostException, String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains("ctrl-loss-tmo"), e.getCause().getMessage());
        assertEquals(ControllerState.DEAD, controller.state());
        assertThrows(NvmfControllerLostException.class, () -> ns.read(0, 1, MemorySegment.ofArray(new byte[512])));
    }

    @Test
    void neverMoreThanSqsizeOutstandingTheRestWaits() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.silentIo = true;
        controller = NvmeController.connect(options(script).commandTimeout(Duration.ofSeconds(20)).build());
        Namespace ns = controller.firstNamespace();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            reads.add(ns.readAsync(i, 1, MemorySegment.ofArray(new byte[512])));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (target.receivedIo(0x02).size() < 15 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(200);
        // queue of 16 entries: SQSIZE 15 outstanding at most; the other 25 wait in the library
        assertEquals(15, target.receivedIo(0x02).size());
        assertEquals(List.of(0, 25), controller.pendingPerQueue());
        assertTrue(reads.stream().noneMatch(CompletableFuture::isDone));
    }
}
