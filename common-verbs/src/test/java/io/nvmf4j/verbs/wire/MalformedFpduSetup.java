package io.nvmf4j.verbs.wire;

import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Patterns;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The bench most malformed-FPDU tests start from: a handshake done by hand, a target region (all rights) and an
 * inbox with one posted receive, and the checks that the provider, after the bad FPDU, terminated, failed that
 * receive and touched no byte it was not asked to.
 */
record MalformedFpduSetup(WireBench wire, WireBench.Handshake h, GuardedRegion target, GuardedRegion inbox,
        byte[] targetBefore) {
    static final int SIZE = 4096;
    static final long RECV_ID = 1;

    static MalformedFpduSetup open(boolean crc) throws Exception {
        WireBench wire = WireBench.open();
        try {
            GuardedRegion target = wire.provider().registerOpen(SIZE).fill(70);
            GuardedRegion inbox = wire.provider().registerOpen(SIZE);
            WireBench.Handshake h = wire.handshake(crc, WireBench.postReceive(RECV_ID, inbox, 1024, 64));
            return new MalformedFpduSetup(wire, h, target, inbox, target.snapshot());
        } catch (Exception | Error e) {
            wire.close();
            throw e;
        }
    }

    /** The provider terminated as expected, flushed/failed its receive, and touched nothing. */
    TerminateMessage expectTerminate(int[]... expected) throws Exception {
        TerminateMessage terminate = WireBench.assertTerminatedWith(h, expected);
        wire.assertReceiveFailed(RECV_ID);
        Patterns.assertSameBytes(targetBefore, target.segment(), "target region");
        assertInboxUntouchedOutsideTheReceive();
        target.assertGuardsIntact();
        return terminate;
    }

    void assertInboxUntouchedOutsideTheReceive() {
        byte[] outside = inbox.snapshot();
        Arrays.fill(outside, 1024, 1024 + 64, (byte) 0);
        Patterns.assertSameBytes(new byte[SIZE], MemorySegment.ofArray(outside), "inbox outside the receive");
        inbox.assertGuardsIntact();
    }

    void close() {
        wire.close();
    }
}
