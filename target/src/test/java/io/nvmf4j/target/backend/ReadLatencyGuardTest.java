package io.nvmf4j.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The write budget a namespace keeps while it is being read, on a clock the test drives. */
class ReadLatencyGuardTest {

    private static final long MIB = 1024 * 1024;
    private static final long T0 = 1_000_000_000L;

    private final ReadLatencyGuard guard = new ReadLatencyGuard();

    @Test
    void withNoReaderWritesGoAsDeepAsTheyCome() {
        for (int i = 0; i < 4; i++) {
            assertTrue(guard.tryStartWrite(MIB, T0), "1 MiB write " + i);
        }
        assertEquals(4 * MIB, guard.writeBytesInFlight());
    }

    @Test
    void whileAReadIsInFlightOnlyOneLargeWriteIsInFlight() {
        guard.readStarted();
        assertTrue(guard.tryStartWrite(MIB, T0), "the first write always goes: writes never starve");
        assertFalse(guard.tryStartWrite(MIB, T0), "a second 1 MiB write waits behind the reader");
        assertFalse(guard.tryStartWrite(4096, T0), "so does a small one: the budget is full");
        guard.writeEnded(MIB);
        assertTrue(guard.tryStartWrite(MIB, T0), "the next goes once the first ended");
    }

    @Test
    void smallWritesShareTheBudgetWhileReadsAreActive() {
        guard.readStarted();
        for (long i = 0; i < ReadLatencyGuard.WRITE_BUDGET_BYTES / 4096; i++) {
            assertTrue(guard.tryStartWrite(4096, T0), "4 KiB write " + i);
        }
        assertFalse(guard.tryStartWrite(4096, T0), "one more is over the budget");
    }

    @Test
    void aReaderBetweenTwoReadsStillCountsUntilTheWindowHasPassed() {
        guard.readStarted();
        guard.readEnded(T0);
        assertTrue(guard.tryStartWrite(MIB, T0 + 1_000));
        assertFalse(guard.tryStartWrite(MIB, T0 + 50_000), "50 us after its read a QD1 reader is still there");
        assertTrue(guard.tryStartWrite(MIB, T0 + ReadLatencyGuard.READ_WINDOW_NANOS + 1),
                "after the window the reader is gone and writes go deep again");
    }
}
