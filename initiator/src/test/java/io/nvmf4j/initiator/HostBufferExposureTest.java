package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.fake.ScriptedController;
import io.nvmf4j.initiator.fake.ScriptedController.Hostility;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A controller reaches only the bytes of the command it is serving, only while it serves it (issue 13, F6): the
 * host's buffers are registered without remote access, and each keyed command exposes exactly its bytes through a
 * memory window that ends with the response. A controller writing past the command's buffer, into another
 * command's, with a completed command's key, or reading past a write's data gets a remote access error (its
 * connection ends with a Terminate), the host's bytes outside the command stay as they were, and the host call
 * fails: connect, discovery (what {@code nvmf4j discover} runs, exiting non-zero on any exception) or the I/O.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostBufferExposureTest {

    private static final byte HOST_BYTE = 0x55;

    private ScriptedController target;
    private NvmeController controller;

    @AfterEach
    void tearDown() {
        if (controller != null) {
            controller.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private ConnectOptions.Builder options(ScriptedController.Script script) {
        // a short ctrl-loss-tmo: the host retries the I/O after each reconnect, the hostile target refuses again
        return ConnectOptions.builder(target.address(), script.subsystem).host(HostIdentity.generate())
                .ioQueues(1).queueSize(16).provider("softiwarp").connectTimeout(Duration.ofSeconds(5))
                .commandTimeout(Duration.ofSeconds(5)).ctrlLossTimeout(Duration.ofSeconds(1))
                .reconnectDelay(Duration.ofMillis(200));
    }

    private NvmeController connect(Hostility hostility) throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.hostility = hostility;
        script.hostileQueue = 1;
        target = new ScriptedController(script);
        controller = NvmeController.connect(options(script).build());
        return controller;
    }

    private static NvmfException failure(CompletableFuture<?> io) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> io.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof NvmfException, String.valueOf(e.getCause()));
        return (NvmfException) e.getCause();
    }

    private void assertUntouched(IoBuffer buffer, long from, long to, byte expected) {
        for (long i = from; i < to; i++) {
            assertEquals(expected, buffer.segment().get(ValueLayout.JAVA_BYTE, i), "host byte " + i);
        }
    }

    /**
     * The target's side of the refusal: its work request fails when the host's Terminate (or remote access error)
     * reaches it, which may be after the host has already given up the command, so wait for it (bounded).
     */
    private boolean targetSawRemoteError() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do {
            if (target.remoteErrors.stream().anyMatch(e -> e.contains("TERMINATE_RECEIVED")
                    || e.contains("REM_ACCESS_ERR"))) {
                return true;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        return false;
    }

    @Test
    void aTargetWritingPastTheIdentifyBufferFailsDiscoveryInsteadOfReadingBackHostMemory() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.hostility = Hostility.WRITE_PAST_END;
        script.hostileQueue = 0; // the admin queue: Identify Controller, the first data to the host
        target = new ScriptedController(script);
        ConnectOptions discovery = ConnectOptions.discovery(target.address()).host(HostIdentity.generate())
                .provider("softiwarp").commandTimeout(Duration.ofSeconds(5)).build();
        assertThrows(NvmfException.class, () -> Discovery.discover(discovery));
        assertTrue(targetSawRemoteError(), String.valueOf(target.remoteErrors));
    }

    @Test
    void aTargetWritingPastAReadsBufferGetsARemoteAccessErrorAndNoHostByteOutsideIt() throws Exception {
        NvmeController c = connect(Hostility.WRITE_PAST_END);
        Namespace ns = c.firstNamespace();
        try (IoBuffer buffer = c.allocateBuffer(16384)) {
            buffer.segment().fill(HOST_BYTE);
            failure(ns.readAsync(0, 8, buffer, 4096)); // 4 KiB into [4096, 8192)
            assertUntouched(buffer, 8192, 16384, HOST_BYTE);
            assertUntouched(buffer, 0, 4096, HOST_BYTE);
        }
        assertTrue(targetSawRemoteError(), String.valueOf(target.remoteErrors));
    }

    @Test
    void aTargetWritingWithOneCommandsKeyIntoAnotherCommandsBufferIsRefused() throws Exception {
        NvmeController c = connect(Hostility.WRITE_AT_PREVIOUS_ADDRESS);
        Namespace ns = c.firstNamespace();
        target.media().asSlice(0, 4096).fill((byte) 0x11);
        target.media().asSlice(4096, 4096).fill((byte) 0x22);
        try (IoBuffer buffer = c.allocateBuffer(16384)) {
            buffer.segment().fill(HOST_BYTE);
            ns.read(0, 8, buffer, 0); // command A: [0, 4096) gets 11h (no earlier command: served honestly)
            failure(ns.readAsync(8, 8, buffer, 8192)); // command B: the target aims its key at A's bytes
            assertUntouched(buffer, 0, 4096, (byte) 0x11);
            assertUntouched(buffer, 4096, 16384, HOST_BYTE);
        }
        assertTrue(targetSawRemoteError(), String.valueOf(target.remoteErrors));
    }

    @Test
    void aTargetWritingWithACompletedCommandsKeyIsRefused() throws Exception {
        NvmeController c = connect(Hostility.WRITE_WITH_PREVIOUS_KEY);
        Namespace ns = c.firstNamespace();
        try (IoBuffer buffer = c.allocateBuffer(16384)) {
            ns.read(0, 8, buffer, 0); // command A, completed: [0, 4096) is the application's again
            buffer.segment().fill(HOST_BYTE);
            failure(ns.readAsync(8, 8, buffer, 8192)); // before serving B, the target writes with A's old key
            assertUntouched(buffer, 0, 16384, HOST_BYTE);
        }
        assertTrue(targetSawRemoteError(), String.valueOf(target.remoteErrors));
    }

    @Test
    void aTargetReadingPastAWritesDataStealsNothing() throws Exception {
        NvmeController c = connect(Hostility.READ_PAST_END);
        Namespace ns = c.firstNamespace();
        try (IoBuffer buffer = c.allocateBuffer(16384)) {
            buffer.segment().fill((byte) 0x5E); // a secret next to the data
            buffer.segment().asSlice(0, 8192).fill((byte) 0x01);
            failure(ns.writeAsync(0, 16, buffer, 0)); // 8 KiB: above the 4 KiB in-capsule size, so keyed
        }
        assertTrue(target.stolen.isEmpty(), "the target read " + target.stolen.size() + " pieces past the data");
        assertTrue(target.remoteErrors.stream().anyMatch(e -> e.contains("REM_ACCESS_ERR")),
                String.valueOf(target.remoteErrors));
    }

    @Test
    void aResponseInvalidatingAnotherCommandsKeyFailsTheQueue() throws Exception {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger(NvmeController.class.getName());
        log.addHandler(capture);
        try {
            NvmeController c = connect(Hostility.INVALIDATE_ANOTHER_COMMANDS_KEY);
            Namespace ns = c.firstNamespace();
            try (IoBuffer buffer = c.allocateBuffer(16384)) {
                CompletableFuture<Void> a = ns.readAsync(0, 8, buffer, 0);
                CompletableFuture<Void> b = ns.readAsync(8, 8, buffer, 8192);
                failure(a);
                failure(b);
            }
            assertTrue(warnings.stream().anyMatch(w -> w.contains("invalidated rkey")),
                warnings.size() + " warnings, the first: " + warnings.stream().findFirst().orElse("none"));
        } finally {
            log.removeHandler(capture);
        }
    }

    @Test
    void aCommandOnAClosedBufferFailsAtOnceAndExposesNothing() throws Exception {
        NvmeController c = connect(Hostility.NONE);
        Namespace ns = c.firstNamespace();
        IoBuffer closed = c.allocateBuffer(8192);
        closed.close();
        NvmfException e = failure(ns.readAsync(0, 16, closed, 0));
        assertTrue(e.getMessage().contains("cannot expose its data buffer"), e.getMessage());
        assertEquals(0, target.receivedIo(0x02).size(), "no Read reached the controller");
        ns.read(0, 8, MemorySegment.ofArray(new byte[4096])); // the queue lives on
    }

    @Test
    void aCommandTheTargetBreaksTheConnectionOnFailsAfterBoundedRetries() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.closeOnEveryIo = true;
        target = new ScriptedController(script);
        controller = NvmeController.connect(options(script).ctrlLossTimeout(Duration.ofSeconds(30)).build());
        NvmfException e = failure(controller.firstNamespace().readAsync(0, 8, MemorySegment.ofArray(new byte[4096])));
        assertTrue(e instanceof NvmfControllerLostException, String.valueOf(e));
        // the first try and nvme_max_retries (5) more, then the command fails although reconnects still succeed
        assertEquals(6, target.receivedIo(0x02).size());
    }

    @Test
    void anHonestTargetStillServesEveryPathAfterTheHostileOnesAreRefused() throws Exception {
        NvmeController c = connect(Hostility.NONE);
        Namespace ns = c.firstNamespace();
        try (IoBuffer buffer = c.allocateBuffer(16384)) {
            buffer.segment().asSlice(0, 8192).fill((byte) 0x42);
            ns.write(0, 16, buffer, 0); // keyed, zero-copy
            buffer.segment().fill((byte) 0);
            ns.read(0, 16, buffer, 8192);
            assertUntouched(buffer, 8192, 16384, (byte) 0x42);
            assertUntouched(buffer, 0, 8192, (byte) 0);
        }
        byte[] back = new byte[8192];
        ns.read(0, 16, MemorySegment.ofArray(back)); // through a bounce buffer
        assertEquals(0x42, back[8191]);
        assertFalse(target.remoteErrors.stream().anyMatch(e -> e.contains("TERMINATE_RECEIVED")
                || e.contains("REM_ACCESS_ERR")), String.valueOf(target.remoteErrors));
    }
}
