package io.nvmf4j.target.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A RAM namespace's large transfers through {@link BackendIo#copy}: one piece of at most
 * {@link MemoryCopies#PIECE_BYTES} per {@code poll()} round for all transfers together, oldest first, each ending
 * once, on the polling thread, after its last piece; never inside {@code copy}.
 */
class MemoryCopiesTest {

    private static final int BS = 4096;
    private static final int PIECE = (int) MemoryCopies.PIECE_BYTES;
    private static final int MIB = 1024 * 1024;

    private final Arena arena = Arena.ofConfined();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        arena.close();
    }

    /** Records each end, in order, with the poll round it came in. */
    private static final class Ends implements BackendCompletion {
        final List<Integer> results = new ArrayList<>();
        final List<Integer> rounds = new ArrayList<>();
        int round;

        @Override
        public void backendCompleted(int result) {
            results.add(result);
            rounds.add(round);
        }
    }

    private BackendIo io() throws Exception {
        BackendIo io = BackendIo.open(BackendIoMode.THREADS, 64, "test");
        open.add(io);
        return io;
    }

    private RamBackend ram(long bytes) {
        RamBackend b = RamBackend.allocate(bytes, BS);
        open.add(b);
        return b;
    }

    private MemorySegment random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        MemorySegment s = arena.allocate(length, BS);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, s, 0, length);
        return s;
    }

    private byte[] contents(RamBackend b, long offset, int length) throws BackendException {
        MemorySegment s = arena.allocate(length, BS);
        b.read(offset / BS, s);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private static void pollRound(BackendIo io, Ends ends) {
        ends.round++;
        io.poll();
    }

    @Test
    void aOneMebibyteWriteMovesOnePiecePerRoundAndEndsOnceAfterItsLast() throws Exception {
        BackendIo io = io();
        RamBackend ram = ram(4L * MIB);
        MemorySegment data = random(MIB, 1);
        Ends ends = new Ends();

        io.copy(ram, BackendOp.WRITE, MIB, MIB, data, ends);
        assertEquals(List.of(), ends.results, "nothing ends inside copy");
        assertEquals(1, io.inFlight(), "the transfer counts as in flight until its last piece");

        pollRound(io, ends);
        assertArrayEquals(data.asSlice(0, PIECE).toArray(ValueLayout.JAVA_BYTE), contents(ram, MIB, PIECE),
                "the first round wrote the first piece");
        assertArrayEquals(new byte[MIB - PIECE], contents(ram, MIB + PIECE, MIB - PIECE),
                "and nothing beyond it");

        for (int i = 1; i < MIB / PIECE; i++) {
            assertEquals(List.of(), ends.results, "ended before piece " + (i + 1));
            pollRound(io, ends);
        }
        assertEquals(List.of(MIB), ends.results, "one end, with the whole length");
        assertEquals(List.of(MIB / PIECE), ends.rounds, "in the round of the last piece");
        assertEquals(0, io.inFlight());
        assertArrayEquals(data.toArray(ValueLayout.JAVA_BYTE), contents(ram, MIB, MIB));
        assertArrayEquals(new byte[MIB], contents(ram, 0, MIB), "nothing written before the range");
        assertArrayEquals(new byte[MIB], contents(ram, 2L * MIB, MIB), "nor after it");
    }

    @Test
    void aReadOfAnOddLengthEndsWithItsLastShortPiece() throws Exception {
        BackendIo io = io();
        RamBackend ram = ram(2L * MIB);
        int length = 2 * PIECE + 3 * BS;
        MemorySegment data = random(length, 2);
        ram.write(5, data, false);
        MemorySegment back = arena.allocate(length, BS);
        Ends ends = new Ends();

        io.copy(ram, BackendOp.READ, 5L * BS, length, back, ends);
        for (int i = 0; i < 3; i++) {
            pollRound(io, ends);
        }
        assertEquals(List.of(length), ends.results);
        assertEquals(List.of(3), ends.rounds);
        assertArrayEquals(data.toArray(ValueLayout.JAVA_BYTE), back.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void transfersShareOnePiecePerRoundOldestFirst() throws Exception {
        BackendIo io = io();
        RamBackend ram = ram(4L * MIB);
        Ends ends = new Ends();
        io.copy(ram, BackendOp.WRITE, 0, 2L * PIECE, random(2 * PIECE, 3), ends);
        io.copy(ram, BackendOp.READ, MIB, 2L * PIECE, arena.allocate(2L * PIECE, BS), ends);
        io.copy(ram, BackendOp.WRITE_ZEROES, 2L * MIB, PIECE + BS, null, ends);

        for (int i = 0; i < 6; i++) {
            pollRound(io, ends);
        }
        assertEquals(List.of(2 * PIECE, 2 * PIECE, 0), ends.results);
        assertEquals(List.of(2, 4, 6), ends.rounds, "each round moved one piece of one transfer");
        assertEquals(0, io.poll(), "nothing left to do");
    }

    @Test
    void writeZeroesAndDeallocateZeroTheirRangeOnly() throws Exception {
        BackendIo io = io();
        RamBackend ram = ram(2L * MIB);
        MemorySegment data = random(2 * MIB, 4);
        ram.write(0, data, false);
        Ends ends = new Ends();

        io.copy(ram, BackendOp.WRITE_ZEROES, BS, PIECE + BS, null, ends);
        io.copy(ram, BackendOp.DEALLOCATE, MIB, MIB - BS, null, ends);
        while (io.inFlight() > 0) {
            pollRound(io, ends);
        }
        assertEquals(List.of(0, 0), ends.results);
        byte[] all = contents(ram, 0, 2 * MIB);
        byte[] expected = data.toArray(ValueLayout.JAVA_BYTE);
        java.util.Arrays.fill(expected, BS, BS + PIECE + BS, (byte) 0);
        java.util.Arrays.fill(expected, MIB, 2 * MIB - BS, (byte) 0);
        assertArrayEquals(expected, all);
    }

    @Test
    void aNamespaceClosedUnderATransferEndsItWithEioAndTheGroupGoesOn() throws Exception {
        BackendIo io = io();
        RamBackend closing = RamBackend.allocate(MIB, BS);
        RamBackend other = ram(MIB);
        Ends ends = new Ends();
        io.copy(closing, BackendOp.WRITE, 0, MIB, random(MIB, 5), ends);
        io.copy(other, BackendOp.WRITE, 0, 2L * PIECE, random(2 * PIECE, 6), ends);

        pollRound(io, ends);
        closing.close(); // a removal closes the memory after its grace period
        while (io.inFlight() > 0 && ends.round < 100) {
            pollRound(io, ends);
        }
        assertEquals(List.of(-5, 2 * PIECE), ends.results, "EIO for the closed namespace, the other one written");
        assertEquals(0, io.inFlight());
        assertFalse(ends.round >= 100, "the transfers did not end");
    }
}
