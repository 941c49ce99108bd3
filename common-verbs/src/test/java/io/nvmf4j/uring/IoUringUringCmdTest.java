package io.nvmf4j.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * IORING_OP_URING_CMD in 64- and 128-byte SQEs, against a driver this machine's kernel has: the socket layer's
 * {@code SOCKET_URING_OP_SIOCINQ} (6.7+), whose result is the length of the first datagram queued on a UDP socket.
 * ublk, the user of these commands, needs a kernel module this host lacks; its commands ride the same SQE fields.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoUringUringCmdTest {
    /** {@code SOCKET_URING_OP_SIOCINQ} of include/uapi/linux/io_uring.h. */
    private static final int SOCKET_URING_OP_SIOCINQ = 0;
    private static final int EOPNOTSUPP = 95;

    @BeforeAll
    static void ringAvailable() {
        RingAssumptions.assumeRingAvailable();
    }

    @Test
    void aUringCmdAsksTheSocketDriverHowLongTheQueuedDatagramIs() throws Exception {
        int fd = UdpSockets.withQueuedDatagram(100);
        try (IoUring ring = IoUring.open(2)) {
            assertEquals(SqeSize.SQE64, ring.sqeSize());
            assertTrue(ring.prepareUringCmd(fd, SOCKET_URING_OP_SIOCINQ, MemorySegment.NULL, 7));
            Completions c = new Completions();
            c.awaitTotal(ring, 1);
            assumeSocketUringCmd(c.result(7));
            assertEquals(100, c.result(7));
        } finally {
            PosixFiles.close(fd);
        }
    }

    @Test
    void a128ByteRingHandsTheKernelEachCommandAtItsOwnSlot() throws Exception {
        int[] lengths = {11, 222, 333, 1444};
        int[] fds = new int[lengths.length];
        for (int i = 0; i < lengths.length; i++) {
            fds[i] = UdpSockets.withQueuedDatagram(lengths[i]);
        }
        try (IoUring ring = IoUring.open(4, SqeSize.SQE128); Arena arena = Arena.ofConfined()) {
            assertEquals(SqeSize.SQE128, ring.sqeSize());
            MemorySegment payload = arena.allocate(80);
            for (int i = 0; i < lengths.length; i++) {
                // a 64-byte stride would hand the kernel slot 1's bytes at the second half of slot 0, and so on
                payload.fill((byte) (0x11 * (i + 1)));
                assertTrue(ring.prepareUringCmd(fds[i], SOCKET_URING_OP_SIOCINQ, payload, 100 + i));
            }
            Completions c = new Completions();
            c.awaitTotal(ring, lengths.length);
            assumeSocketUringCmd(c.result(100));
            for (int i = 0; i < lengths.length; i++) {
                assertEquals(lengths[i], c.result(100 + i), "the command on socket " + i);
            }
        } finally {
            for (int fd : fds) {
                PosixFiles.close(fd);
            }
        }
    }

    @Test
    void thePayloadFillsSqeCmdAndAShorterOneLeavesNoStaleBytesBehindIt() throws Exception {
        int fd = UdpSockets.withQueuedDatagram(5);
        try (IoUring ring = IoUring.open(1, SqeSize.SQE128); Arena arena = Arena.ofConfined()) {
            MemorySegment full = arena.allocate(80);
            for (int i = 0; i < 80; i++) {
                full.set(JAVA_BYTE, i, (byte) (i + 1));
            }
            assertTrue(ring.prepareUringCmd(fd, 0x12345678, full, 1));
            MemorySegment sqe = ring.lastPrepared();
            assertEquals(128, sqe.byteSize());
            assertEquals(Sqe.OP_URING_CMD, sqe.get(JAVA_BYTE, Sqe.OPCODE));
            assertEquals(fd, sqe.get(JAVA_INT, Sqe.FD));
            assertEquals(0x12345678, sqe.get(JAVA_INT, Sqe.CMD_OP));
            assertEquals(0, sqe.get(JAVA_INT, Sqe.CMD_OP + 4), "__pad1");
            assertEquals(-1L, sqe.asSlice(Sqe.CMD, 80).mismatch(full), "sqe->cmd holds the whole payload");
            ring.submit();
            Completions c = new Completions();
            c.awaitTotal(ring, 1);

            // the same slot again, with 16 bytes: everything after them must be zero, not the last command's bytes
            assertTrue(ring.prepareUringCmd(fd, SOCKET_URING_OP_SIOCINQ, full.asSlice(0, 16), 2));
            MemorySegment again = ring.lastPrepared();
            assertEquals(sqe.address(), again.address(), "a one-entry ring reuses its slot");
            assertEquals(-1L, again.asSlice(Sqe.CMD, 16).mismatch(full.asSlice(0, 16)));
            for (long b = Sqe.CMD + 16; b < 128; b++) {
                assertEquals(0, again.get(JAVA_BYTE, b), "byte " + b + " of the reused SQE");
            }
            c.awaitTotal(ring, 2);
            assumeSocketUringCmd(c.result(2));
            assertEquals(5, c.result(2));
        } finally {
            PosixFiles.close(fd);
        }
    }

    @Test
    void aPayloadLargerThanTheRingsCommandAreaIsRefused() throws Exception {
        try (IoUring small = IoUring.open(1); IoUring big = IoUring.open(1, SqeSize.SQE128);
                Arena arena = Arena.ofConfined()) {
            assertEquals(16, SqeSize.SQE64.commandBytes());
            assertEquals(80, SqeSize.SQE128.commandBytes());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> small.prepareUringCmd(0, 0, arena.allocate(17), 1));
            assertTrue(e.getMessage().contains("17-byte URING_CMD payload"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> big.prepareUringCmd(0, 0, arena.allocate(81), 1));
            assertEquals(0, small.prepared(), "nothing was prepared");
            assertEquals(0, big.prepared(), "nothing was prepared");
        }
    }

    /** Kernels before 6.7 have no socket uring_cmd: the command itself is then refused, not misplaced. */
    private static void assumeSocketUringCmd(int result) {
        assumeTrue(result != -EOPNOTSUPP, "this kernel's sockets take no URING_CMD (Linux < 6.7)");
    }
}
