package io.nvmf4j.verbs.conformance;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.ProtectionConformanceTest.assertRemoteReadRejected;
import static io.nvmf4j.verbs.conformance.ProtectionConformanceTest.assertRemoteWriteRejected;
import static io.nvmf4j.verbs.conformance.ProtectionConformanceTest.assertTerminated;
import static io.nvmf4j.verbs.conformance.ProtectionConformanceTest.assertWriteThenReadRejected;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static io.nvmf4j.verbs.conformance.WorkRequests.rdmaRead;
import static io.nvmf4j.verbs.conformance.WorkRequests.rdmaWrite;
import static io.nvmf4j.verbs.conformance.WorkRequests.receive;
import static io.nvmf4j.verbs.conformance.WorkRequests.sendWithInvalidate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Memory windows (IBA type 2; the FRWR idea of Linux nvme-rdma): a peer reaches exactly the bound slice of a region,
 * with exactly the bound rights, for exactly the binding's life. One byte outside, a missing right, a key after
 * invalidate or of an earlier binding: a remote access error, a Terminate, and not one byte placed anywhere.
 */
class MemoryWindowConformanceTest {
    private static final int SIZE = 4096;
    private static final int OFFSET = 1024;
    private static final int LENGTH = 512;
    private static final Set<AccessFlag> READ_WRITE = EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);

    private static GuardedRegion bindable(Endpoint side) throws VerbsException {
        return side.register(SIZE, AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void boundWindowIsWritableAndReadableByThePeerWithinItsRangeOnly(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(31);
            byte[] before = region.snapshot();
            int rkey = window.bind(region.region(), OFFSET, LENGTH, READ_WRITE);
            assertTrue(window.isBound());
            assertEquals(rkey, window.rkey());
            assertEquals(region.address(OFFSET), window.address());
            assertEquals(LENGTH, window.length());

            GuardedRegion data = bench.client().registerOpen(LENGTH).fill(32);
            GuardedRegion sink = bench.client().registerOpen(LENGTH);
            SendWorkRequest write = rdmaWrite(1, data, 0, LENGTH, window.address(), rkey);
            write.next(rdmaRead(2, sink, 0, LENGTH, window.address(), rkey));
            pair.client().queuePair().postSend(write);
            List<WorkCompletion> done = bench.client().awaitCompletions(2, TIMEOUT);
            assertSuccess(done.get(0), 1, WcOpcode.RDMA_WRITE);
            assertSuccess(done.get(1), 2, WcOpcode.RDMA_READ);
            Patterns.assertSameBytes(data.segment(), sink.segment(), "window read back after the write");
            byte[] expected = before.clone();
            MemorySegment.ofArray(expected).asSlice(OFFSET, LENGTH).copyFrom(data.segment());
            Patterns.assertSameBytes(expected, region.segment(), "region: the window's bytes written, no other");
            region.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void writeRunningOneBytePastTheWindowIsRejectedAndPlacesNothing(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(33);
            byte[] before = region.snapshot();
            int rkey = window.bind(region.region(), OFFSET, LENGTH, READ_WRITE);
            assertRemoteWriteRejected(bench, pair, window.address(), rkey, LENGTH + 1);
            Patterns.assertSameBytes(before, region.segment(), "region after a write one byte past its window");
            region.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void writeStartingOneByteBeforeTheWindowIsRejectedAndPlacesNothing(ProviderUnderTest provider)
            throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(34);
            byte[] before = region.snapshot();
            int rkey = window.bind(region.region(), OFFSET, LENGTH, READ_WRITE);
            assertRemoteWriteRejected(bench, pair, window.address() - 1, rkey, 2);
            Patterns.assertSameBytes(before, region.segment(), "region after a write one byte before its window");
            region.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readRunningOneBytePastTheWindowIsRejected(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(35);
            int rkey = window.bind(region.region(), OFFSET, LENGTH, READ_WRITE);
            assertRemoteReadRejected(bench, pair, window.address() + 1, rkey, LENGTH);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void writeThroughAReadOnlyWindowIsRejected(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(36);
            byte[] before = region.snapshot();
            int rkey = window.bind(region.region(), OFFSET, LENGTH, EnumSet.of(AccessFlag.REMOTE_READ));
            assertRemoteWriteRejected(bench, pair, window.address(), rkey, 64);
            Patterns.assertSameBytes(before, region.segment(), "region after a write through a read-only window");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readThroughAWriteOnlyWindowIsRejected(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Assumptions.assumeTrue(provider.remoteReadAccessLimitation() == null,
                    provider.remoteReadAccessLimitation());
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(37);
            int rkey = window.bind(region.region(), OFFSET, LENGTH, EnumSet.of(AccessFlag.REMOTE_WRITE));
            assertRemoteReadRejected(bench, pair, window.address(), rkey, 64);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void keyOfAnInvalidatedWindowReachesNothing(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(38);
            byte[] before = region.snapshot();
            int rkey = window.bind(region.region(), OFFSET, LENGTH, READ_WRITE);
            window.invalidate();
            window.invalidate(); // idempotent
            assertFalse(window.isBound());
            assertRemoteWriteRejected(bench, pair, region.address(OFFSET), rkey, 64);
            Patterns.assertSameBytes(before, region.segment(), "region after a write with an invalidated key");
            region.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void keyOfAnEarlierBindingReachesNothingAfterARebind(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            Loopback.Pair pair = bench.connect();
            GuardedRegion region = bindable(bench.server()).fill(39);
            byte[] before = region.snapshot();
            int oldKey = window.bind(region.region(), OFFSET, LENGTH, READ_WRITE);
            int newKey = window.bind(region.region(), OFFSET, LENGTH, READ_WRITE);
            assertNotEquals(oldKey, newKey, "a rebind handed out the previous key again");
            assertRemoteWriteRejected(bench, pair, region.address(OFFSET), oldKey, 64);
            Patterns.assertSameBytes(before, region.segment(), "region after a write with the earlier key");
            region.assertGuardsIntact();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithInvalidateEndsAWindowBinding(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.client().pd().allocateWindow()) {
            Assumptions.assumeTrue(window.remotelyInvalidatable(),
                    "windows of this provider are not remotely invalidatable");
            Loopback.Pair pair = bench.connect();
            // the host (client) exposes a window; the target (server) answers with Send with Invalidate of its key
            GuardedRegion hostBuffer = bindable(bench.client()).fill(40);
            int rkey = window.bind(hostBuffer.region(), OFFSET, LENGTH, READ_WRITE);
            GuardedRegion inbox = bench.client().registerOpen(64);
            GuardedRegion response = bench.server().registerOpen(64).fill(41);
            pair.client().queuePair().postReceive(receive(50, inbox, 0, 64));
            pair.server().queuePair().postSend(sendWithInvalidate(51, response, 0, 16, rkey));
            assertSuccess(bench.server().awaitCompletion(TIMEOUT), 51, WcOpcode.SEND);
            WorkCompletion received = bench.client().awaitCompletion(TIMEOUT);
            assertSuccess(received, 50, WcOpcode.RECV);
            assertTrue(received.withInvalidate(), () -> "receive of a Send with Invalidate: " + received);
            assertEquals(rkey, received.invalidatedRkey());
            assertFalse(window.isBound(), "window whose key the peer invalidated");
            assertTrue(hostBuffer.region().isValid(), "the region under the window stays registered");

            byte[] before = hostBuffer.snapshot();
            SendWorkRequest write = rdmaWrite(1, bench.server().registerOpen(64).fill(42), 0, 64,
                    hostBuffer.address(OFFSET), rkey);
            GuardedRegion probe = bench.client().register(16, AccessFlag.REMOTE_READ);
            GuardedRegion probeSink = bench.server().registerOpen(16);
            write.next(rdmaRead(2, probeSink, 0, 16, probe.address(0), probe.rkey()));
            pair.server().queuePair().postSend(write);
            assertWriteThenReadRejected(bench.server().awaitCompletions(2, TIMEOUT));
            assertTerminated(provider, pair.server(), pair.client());
            Patterns.assertSameBytes(before, hostBuffer.segment(), "host buffer after a write with the dead key");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.nvmf4j.verbs.conformance.ProviderUnderTest#available")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @SuppressWarnings("try") // closing the window mid-block is the behaviour under test; the second close is a no-op
    void bindChecksTheRegionTheSliceAndTheRights(ProviderUnderTest provider) throws Exception {
        try (Loopback bench = Loopback.open(provider);
             MemoryWindow window = bench.server().pd().allocateWindow()) {
            GuardedRegion plain = bench.server().registerOpen(SIZE);
            GuardedRegion bindable = bindable(bench.server());
            GuardedRegion readOnly = bench.server().register(SIZE, AccessFlag.MW_BIND);
            GuardedRegion foreign = GuardedRegion.register(bench.arena(), bench.client().pd(), SIZE,
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
            assertBindRefused(VerbsErrorCode.INVALID_ARGUMENT, () -> window.bind(plain.region(), 0, 64, READ_WRITE));
            assertBindRefused(VerbsErrorCode.INVALID_KEY, () -> window.bind(foreign.region(), 0, 64, READ_WRITE));
            assertBindRefused(VerbsErrorCode.INVALID_ARGUMENT,
                    () -> window.bind(bindable.region(), 0, 0, READ_WRITE));
            assertBindRefused(VerbsErrorCode.INVALID_ARGUMENT,
                    () -> window.bind(bindable.region(), SIZE - 63, 64, READ_WRITE));
            assertBindRefused(VerbsErrorCode.INVALID_ARGUMENT,
                    () -> window.bind(bindable.region(), -1, 64, READ_WRITE));
            assertBindRefused(VerbsErrorCode.INVALID_ARGUMENT,
                    () -> window.bind(bindable.region(), 0, 64, EnumSet.noneOf(AccessFlag.class)));
            assertBindRefused(VerbsErrorCode.INVALID_ARGUMENT,
                    () -> window.bind(bindable.region(), 0, 64, EnumSet.of(AccessFlag.LOCAL_WRITE)));
            assertBindRefused(VerbsErrorCode.INVALID_ARGUMENT,
                    () -> window.bind(readOnly.region(), 0, 64, EnumSet.of(AccessFlag.REMOTE_WRITE)));
            assertFalse(window.isBound());
            window.bind(readOnly.region(), 0, 64, EnumSet.of(AccessFlag.REMOTE_READ));
            assertTrue(window.isBound());
            window.close();
            assertFalse(window.isBound());
            assertBindRefused(VerbsErrorCode.CLOSED, () -> window.bind(bindable.region(), 0, 64, READ_WRITE));
        }
    }

    private interface Bind {
        void run() throws VerbsException;
    }

    private static void assertBindRefused(VerbsErrorCode expected, Bind bind) {
        VerbsException e = assertThrows(VerbsException.class, bind::run);
        assertEquals(expected, e.code(), e::getMessage);
    }
}
