package io.nvmf4j.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A wait stuck in io_uring_enter cannot be interrupted: only a separate thread bounds it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoUringQueueTest {

    @BeforeAll
    static void ringAvailable() {
        RingAssumptions.assumeRingAvailable();
    }

    @Test
    void aFullSqRefusesToPrepareUntilSubmitFreesRoom() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            for (int i = 0; i < 4; i++) {
                assertTrue(ring.prepareNop(i));
            }
            assertFalse(ring.prepareNop(4), "the SQ is full");
            assertFalse(ring.prepareFsync(0, false, 4), "still full, whatever the operation");
            assertEquals(4, ring.prepared(), "a refused prepare prepared nothing");

            assertEquals(4, ring.submit());
            assertEquals(0, ring.prepared());
            assertTrue(ring.prepareNop(4), "room again once the kernel took the SQEs");

            Completions c = new Completions();
            c.awaitTotal(ring, 5);
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L), c.order().stream().sorted().toList());
            assertEquals(List.of(), c.duplicates());
        }
    }

    /**
     * More completions than the CQ holds (4 for a 2-entry ring) without reaping: the kernel keeps the rest in its
     * overflow list (IORING_FEAT_NODROP) and flags the SQ ring; the next submit, with nothing prepared, enters the
     * kernel with GETEVENTS to flush them into the CQ, and none is lost.
     */
    @Test
    void completionsBeyondTheCqSizeAreFlushedByTheNextSubmit() throws Exception {
        try (IoUring ring = IoUring.open(2)) {
            int total = 8;
            int prepared = 0;
            for (int round = 0; round < 4 * total && prepared < total; round++) {
                while (prepared < total && ring.prepareNop(prepared)) {
                    prepared++;
                }
                ring.submit(); // 0 under EBUSY (an older kernel refusing to submit while it overflows)
            }
            Completions c = new Completions();
            assertEquals(4, ring.reap(c), "the CQ holds 4; the other nops completed into the overflow list");
            for (int round = 0; round < 4 * total && c.count() < total; round++) {
                while (prepared < total && ring.prepareNop(prepared)) {
                    prepared++;
                }
                ring.submit();
                ring.reap(c);
            }
            assertEquals(total, c.count());
            assertEquals(List.of(), c.duplicates());
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), c.order().stream().sorted().toList());
        }
    }

    /**
     * Far more operations than SQ (8) or CQ (16) entries, nops and 512-byte buffered reads mixed, prepared, submitted
     * and reaped over many rounds without waiting for each round to drain: every userData comes back exactly once,
     * each read with its bytes.
     */
    @Test
    void manyMoreOperationsThanEntriesAllCompleteExactlyOnce(@TempDir Path dir) throws Exception {
        int total = 2000;
        byte[] content = new byte[64 * 512];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i / 512);
        }
        Path file = Files.write(dir.resolve("content"), content);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            int fd = PosixFiles.openBuffered(file);
            try {
                MemorySegment buffers = arena.allocate((long) total * 512, 512);
                Completions c = new Completions();
                int issued = 0;
                for (int round = 0; round < 100 * total && c.count() < total; round++) {
                    while (issued < total && prepareOne(ring, fd, buffers, issued)) {
                        issued++;
                    }
                    ring.submit();
                    if (ring.reap(c) == 0 && issued == total) {
                        ring.submitAndWait(1);
                    }
                }
                assertEquals(total, c.count());
                assertEquals(List.of(), c.duplicates());
                for (int i = 0; i < total; i++) {
                    long userData = 1_000_000L + i;
                    if (i % 2 == 0) {
                        assertEquals(0, c.result(userData));
                    } else {
                        assertEquals(512, c.result(userData), "read " + i);
                        assertEquals((byte) (i % 64), buffers.get(ValueLayout.JAVA_BYTE,
                                (long) i * 512 + 511), "read " + i + " has block " + (i % 64));
                    }
                }
            } finally {
                PosixFiles.close(fd);
            }
        }
    }

    private static boolean prepareOne(IoUring ring, int fd, MemorySegment buffers, int i) {
        long userData = 1_000_000L + i;
        if (i % 2 == 0) {
            return ring.prepareNop(userData);
        }
        return ring.prepareRead(fd, buffers.asSlice((long) i * 512, 512), (long) (i % 64) * 512, userData);
    }
}
