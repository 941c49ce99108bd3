package io.nvmf4j.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A wait stuck in io_uring_enter cannot be interrupted: only a separate thread bounds it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoUringRoundTripTest {
    private static final int EBADF = 9;
    private static final int ENOENT = 2;

    @BeforeAll
    static void ringAvailable() {
        RingAssumptions.assumeRingAvailable();
    }

    @Test
    void nopsComeBackWithTheirUserData() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            assertEquals(4, ring.entries());
            assertTrue(ring.prepareNop(0xDEADBEEFCAFEL));
            assertTrue(ring.prepareNop(Long.MIN_VALUE));
            assertTrue(ring.prepareNop(-1L));
            assertEquals(3, ring.prepared());
            assertEquals(3, ring.submitAndWait(3));
            assertEquals(0, ring.prepared());
            Completions c = new Completions();
            assertEquals(3, ring.reap(c));
            assertEquals(List.of(0xDEADBEEFCAFEL, Long.MIN_VALUE, -1L), c.order());
            assertEquals(0, c.result(Long.MIN_VALUE));
            assertEquals(0, ring.reap(c), "the head moved past what was reaped");
        }
    }

    @Test
    void aTimeoutEndsAWaitWithMinusEtimeOnceItsTimeHasPassed() throws Exception {
        try (IoUring ring = IoUring.open(2); Arena arena = Arena.ofConfined()) {
            MemorySegment timespec = arena.allocate(16, 8);
            long start = System.nanoTime();
            assertTrue(ring.prepareTimeout(timespec, TimeUnit.MILLISECONDS.toNanos(30), 5));
            assertEquals(0L, timespec.get(ValueLayout.JAVA_LONG, 0), "tv_sec");
            assertEquals(30_000_000L, timespec.get(ValueLayout.JAVA_LONG, 8), "tv_nsec");
            assertEquals(1, ring.submitAndWait(1), "the kernel took the timeout and waited for its CQE");
            long waited = System.nanoTime() - start;
            Completions c = new Completions();
            assertEquals(1, ring.reap(c));
            assertEquals(-Errno.ETIME, c.result(5));
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(30), "ended after " + waited + " ns");
        }
    }

    @Test
    void submitWithNothingPreparedDoesNothing() throws Exception {
        try (IoUring ring = IoUring.open(2)) {
            assertEquals(0, ring.submit());
            assertEquals(0, ring.reap(new Completions()));
        }
    }

    @Test
    void aReadOnABadFdCompletesWithMinusEbadfInsteadOfThrowing() throws Exception {
        try (IoUring ring = IoUring.open(2); Arena arena = Arena.ofConfined()) {
            assertTrue(ring.prepareRead(-1, arena.allocate(512, 512), 0, 7));
            Completions c = new Completions();
            c.awaitTotal(ring, 1);
            assertEquals(-EBADF, c.result(7));
        }
    }

    @Test
    void cancellingARequestThatIsNotThereCompletesWithMinusEnoent() throws Exception {
        try (IoUring ring = IoUring.open(2)) {
            assertTrue(ring.prepareCancel(12345, 1));
            Completions c = new Completions();
            c.awaitTotal(ring, 1);
            assertEquals(-ENOENT, c.result(1));
        }
    }

    @Test
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    void registeredBufferIndexFindsTheBufferHoldingTheWholeSegment() throws Exception {
        try (IoUring ring = IoUring.open(2); Arena arena = Arena.ofConfined()) {
            MemorySegment first = arena.allocate(4096, 4096);
            MemorySegment second = arena.allocate(8192, 4096);
            assertEquals(-1, ring.registeredBufferIndex(first), "nothing registered yet");
            ring.registerBuffers(first, second);
            assertEquals(0, ring.registeredBufferIndex(first));
            assertEquals(1, ring.registeredBufferIndex(second));
            assertEquals(1, ring.registeredBufferIndex(second.asSlice(4096, 4096)));
            assertEquals(0, ring.registeredBufferIndex(first.asSlice(100, 1)));
            assertEquals(-1, ring.registeredBufferIndex(arena.allocate(4096, 4096)), "not registered");
            assertEquals(-1, ring.registeredBufferIndex(MemorySegment.ofArray(new byte[16])), "heap memory");
            MemorySegment acrossTheEnd = MemorySegment.ofAddress(second.address() + 4096).reinterpret(8192);
            assertEquals(-1, ring.registeredBufferIndex(acrossTheEnd), "runs past the end of buffer 1");
        }
    }

    @Test
    void registeringTwiceIsRefusedWithEbusyAndTheRingStaysUsable() throws Exception {
        try (IoUring ring = IoUring.open(2); Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(4096, 4096);
            ring.registerBuffers(buffer);
            IoUringException e = assertThrows(IoUringException.class, () -> ring.registerBuffers(buffer));
            assertEquals(16, e.errno(), e.getMessage());
            assertEquals(0, ring.registeredBufferIndex(buffer));
            assertTrue(ring.prepareNop(1));
            new Completions().awaitTotal(ring, 1);
        }
    }

    @Test
    void closingTwiceIsHarmlessAndAClosedRingRefusesWork() throws Exception {
        IoUring ring = IoUring.open(2);
        ring.close();
        ring.close();
        assertThrows(IllegalStateException.class, ring::submit);
        assertThrows(IllegalStateException.class, () -> ring.prepareNop(1));
        assertThrows(IllegalStateException.class, () -> ring.reap(new Completions()));
    }

    @Test
    void entriesMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> IoUring.open(3));
        assertThrows(IllegalArgumentException.class, () -> IoUring.open(0));
        assertThrows(IllegalArgumentException.class, () -> IoUring.open(65536));
    }
}
