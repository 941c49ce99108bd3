package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.wire.MalformedFpduSetup.RECV_ID;
import static io.nvmf4j.verbs.wire.MalformedFpduSetup.SIZE;
import static io.nvmf4j.verbs.wire.TerminateMessage.DDP_ETYPE_TAGGED;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_DDP;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_RDMAP;
import static io.nvmf4j.verbs.wire.TerminateMessage.RDMAP_ETYPE_REMOTE_PROTECTION;
import static io.nvmf4j.verbs.wire.WireBench.term;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Patterns;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Malformed tagged DDP segments (RFC 5041, 4 and 7.2; RFC 5040, 6.4): an RDMA Write naming an STag that is unknown,
 * invalidated, of another protection domain or without remote write, or a range outside its region; a continuation that
 * changes STag or skips ahead; an unsupported DDP version. The contract each test checks is the one {@link
 * MalformedFpduWireTest} states.
 */
class MalformedTaggedDdpWireTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void secondSegmentOfAWriteNamingAnotherStagIsTerminated() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            GuardedRegion other = s.wire().provider().registerOpen(SIZE);
            s.h().raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, false, DdpSegment.OP_RDMA_WRITE),
                    s.target().rkey(), s.target().address(0), Patterns.bytes(95, 32)));
            s.h().raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, true, DdpSegment.OP_RDMA_WRITE),
                    other.rkey(), other.address(32), Patterns.bytes(96, 32)));
            // siw_write_check_ntoh(): a continuation must name the STag of the message it continues
            WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_INVALID_STAG));
            Patterns.assertSameBytes(new byte[SIZE], other.segment(), "region named by the stray continuation");
            other.assertGuardsIntact();
            s.target().assertGuardsIntact();
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void secondSegmentOfAWriteThatSkipsAheadIsTerminatedWithBaseOrBounds() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, false, DdpSegment.OP_RDMA_WRITE),
                    s.target().rkey(), s.target().address(0), Patterns.bytes(97, 32)));
            s.h().raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, true, DdpSegment.OP_RDMA_WRITE),
                    s.target().rkey(), s.target().address(1000), Patterns.bytes(98, 32)));
            WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_BASE_BOUNDS));
            byte[] after = s.target().snapshot();
            System.arraycopy(s.targetBefore(), 0, after, 0, 32); // the first segment was legal and may be placed
            Patterns.assertSameBytes(s.targetBefore(), MemorySegment.ofArray(after), "region past the first segment");
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedWriteToAnUnknownStagIsTerminatedWithInvalidStagAndReportsTheSegment() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            GuardedRegion gone = s.wire().provider().registerOpen(SIZE);
            int deadStag = gone.rkey();
            long deadAddress = gone.address(0);
            gone.close();
            s.h().raw().sendFpdu(DdpSegment.rdmaWrite(deadStag, deadAddress, Patterns.bytes(78, 64)));
            TerminateMessage terminate = s.expectTerminate(
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_INVALID_STAG),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_INVALID_STAG));
            Patterns.assertSameBytes(new byte[SIZE], gone.segment(), "memory of the deregistered region");
            if (terminate.ddpHeaderIncluded()) {
                // DDP segment length, then the terminated tagged header: control, STag, TO (RFC 5040, 4.8)
                ByteBuffer header = ByteBuffer.wrap(terminate.terminatedHeaders());
                assertEquals(64, header.getShort() & 0xffff, "terminated DDP segment length (payload bytes)");
                assertEquals(DdpSegment.control(true, true, DdpSegment.OP_RDMA_WRITE), header.getShort() & 0xffff);
                assertEquals(deadStag, header.getInt(), "terminated segment's STag");
                assertEquals(deadAddress, header.getLong(), "terminated segment's TO");
            }
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedWriteWithAnInvalidatedStagIsTerminated() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try (MemoryWindow window = s.wire().provider().pd().allocateWindow()) {
            // a window over a bindable region: the STag a peer may invalidate
            GuardedRegion bindable = s.wire().provider().register(SIZE, AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND)
                    .fill(78);
            byte[] before = bindable.snapshot();
            int stag = window.bind(bindable.region(), 0, SIZE, EnumSet.of(AccessFlag.REMOTE_WRITE));
            // first invalidate the window's STag with a Send with Invalidate into the posted receive
            s.h().raw().sendFpdu(DdpSegment.sendWithInvalidate(s.h().raw().takeSendMsn(), stag,
                    Patterns.bytes(79, 8)));
            var wc = s.wire().provider().awaitCompletion(TIMEOUT);
            assertEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
            assertTrue(wc.withInvalidate() && wc.invalidatedRkey() == stag, wc::toString);
            assertTrue(!window.isBound(), "window after the peer invalidated its STag");
            s.h().raw().sendFpdu(DdpSegment.rdmaWrite(stag, bindable.address(0), Patterns.bytes(80, 64)));
            WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_INVALID_STAG),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_INVALID_STAG));
            Patterns.assertSameBytes(before, bindable.segment(), "region under the invalidated window");
            bindable.assertGuardsIntact();
        } finally {
            s.close();
        }
    }

    @ParameterizedTest(name = "offset {0}")
    @ValueSource(longs = {SIZE - 32, -16, SIZE, -256})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedWriteOutsideTheRegionIsTerminatedWithBaseOrBoundsError(long offset) throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.rdmaWrite(s.target().rkey(), s.target().address(offset),
                    Patterns.bytes(81, 64)));
            TerminateMessage terminate = WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_BASE_BOUNDS),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_BASE_BOUNDS));
            s.wire().assertReceiveFailed(RECV_ID);
            s.target().assertGuardsIntact();
            byte[] after = s.target().snapshot();
            if (offset == SIZE - 32) { // its first 32 bytes are inside and may have been placed
                System.arraycopy(s.targetBefore(), SIZE - 32, after, SIZE - 32, 32);
            }
            Patterns.assertSameBytes(s.targetBefore(), MemorySegment.ofArray(after), "region after " + terminate);
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedWriteIntoARegionWithoutRemoteWriteIsTerminated() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion readOnly = wire.provider().register(SIZE, AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ)
                    .fill(82);
            byte[] before = readOnly.snapshot();
            WireBench.Handshake h = wire.handshake(true, QueuePairSetup.NONE);
            h.raw().sendFpdu(DdpSegment.rdmaWrite(readOnly.rkey(), readOnly.address(0), Patterns.bytes(83, 64)));
            // RFC 5041 has no "access rights" code for tagged buffers: siw sends invalid STag (siw_tagged_error)
            WireBench.assertTerminatedWith(h,
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_INVALID_STAG),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_ACCESS_RIGHTS));
            Patterns.assertSameBytes(before, readOnly.segment(), "region without REMOTE_WRITE");
            readOnly.assertGuardsIntact();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedWriteIntoARegionOfAnotherProtectionDomainIsTerminated() throws Exception {
        try (WireBench wire = WireBench.open()) {
            ProtectionDomain other = wire.bench().track(wire.bench().device().allocatePd());
            GuardedRegion foreign = GuardedRegion.register(wire.bench().arena(), other, SIZE,
                    EnumSet.allOf(AccessFlag.class)).fill(84);
            byte[] before = foreign.snapshot();
            WireBench.Handshake h = wire.handshake(true, QueuePairSetup.NONE);
            h.raw().sendFpdu(DdpSegment.rdmaWrite(foreign.rkey(), foreign.address(0), Patterns.bytes(85, 64)));
            WireBench.assertTerminatedWith(h,
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_STAG_NOT_ASSOCIATED),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
                            TerminateMessage.RDMAP_ECODE_STAG_NOT_ASSOCIATED));
            Patterns.assertSameBytes(before, foreign.segment(), "region of another protection domain");
            foreign.assertGuardsIntact();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedSegmentWithAnUnsupportedDdpVersionIsTerminatedWithoutEchoingItsHeader() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            int control = DdpSegment.TAGGED | DdpSegment.LAST | (2 << 8) | DdpSegment.RDMAP_VERSION_1;
            s.h().raw().sendFpdu(DdpSegment.tagged(control, s.target().rkey(), s.target().address(0),
                    Patterns.bytes(86, 64)));
            TerminateMessage terminate = s.expectTerminate(
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_INVALID_VERSION));
            // siw_send_terminate(): a header of an unknown DDP version has an unknown layout, so it is not copied
            assertTrue(!terminate.ddpHeaderIncluded() && !terminate.rdmapHeaderIncluded()
                    && terminate.terminatedHeaders().length == 0, terminate::toString);
        } finally {
            s.close();
        }
    }
}
