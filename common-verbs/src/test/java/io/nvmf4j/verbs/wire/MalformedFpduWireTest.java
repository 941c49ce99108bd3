package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.wire.TerminateMessage.DDP_ETYPE_CATASTROPHIC;
import static io.nvmf4j.verbs.wire.TerminateMessage.DDP_ETYPE_TAGGED;
import static io.nvmf4j.verbs.wire.TerminateMessage.DDP_ETYPE_UNTAGGED;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_DDP;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_LLP;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_RDMAP;
import static io.nvmf4j.verbs.wire.TerminateMessage.RDMAP_ETYPE_REMOTE_OPERATION;
import static io.nvmf4j.verbs.wire.TerminateMessage.RDMAP_ETYPE_REMOTE_PROTECTION;
import static io.nvmf4j.verbs.wire.WireBench.term;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.Patterns;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * After a valid MPA exchange done by hand (CRC on, so the CRC path is exercised too), one bad FPDU each. The
 * provider must answer with a Terminate whose layer/type/code name the error (RFC 5040, 7; RFC 5041, 7.2;
 * RFC 5044, 8; the values Linux siw sends from siw_qp_rx.c are accepted where the RFCs leave a choice), close
 * the stream, end its connection as TERMINATE_SENT, complete its posted receive in error, and leave every byte
 * outside the addressed region unchanged.
 */
class MalformedFpduWireTest {
    private static final int SIZE = 4096;
    private static final long RECV_ID = 1;

    /** A bench with a handshake done, a target region (all rights) and an inbox with one posted receive. */
    private record Setup(WireBench wire, WireBench.Handshake h, GuardedRegion target, GuardedRegion inbox,
            byte[] targetBefore) {
        static Setup open(boolean crc) throws Exception {
            WireBench wire = WireBench.open();
            try {
                GuardedRegion target = wire.provider().registerOpen(SIZE).fill(70);
                GuardedRegion inbox = wire.provider().registerOpen(SIZE);
                WireBench.Handshake h = wire.handshake(crc, WireBench.postReceive(RECV_ID, inbox, 1024, 64));
                return new Setup(wire, h, target, inbox, target.snapshot());
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

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fpduWithABadCrcIsTerminatedWithAnMpaCrcError() throws Exception {
        Setup s = Setup.open(true);
        try {
            byte[] ulpdu = DdpSegment.send(s.h().raw().takeSendMsn(), Patterns.bytes(71, 40));
            s.h().raw().write(Fpdu.frame(ulpdu, ulpdu.length, true, true));
            s.expectTerminate(term(LAYER_LLP, TerminateMessage.LLP_ETYPE_MPA, TerminateMessage.MPA_ECODE_CRC_ERROR));
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fpduWhoseLengthFieldOverstatesItsSegmentNeverWritesPastTheRegion() throws Exception {
        Setup s = Setup.open(true);
        try {
            // a 64-byte RDMA Write to the last 64 bytes of the region, but the MPA length says 64 bytes more and
            // 64 more bytes follow: read as framed, it is a 128-byte write running 64 bytes past the end, with a
            // CRC that does not match
            byte[] ulpdu = DdpSegment.rdmaWrite(s.target().rkey(), s.target().address(SIZE - 64),
                    Patterns.bytes(72, 64));
            int declared = ulpdu.length + 64;
            ByteBuffer frame = ByteBuffer.allocate(2 + declared + Fpdu.padLength(declared) + 4);
            frame.putShort((short) declared).put(ulpdu).put(Patterns.bytes(73, 64));
            frame.put(new byte[Fpdu.padLength(declared)]).put(MpaCrc.trailer(ulpdu, 0, ulpdu.length));
            s.h().raw().write(frame.array());
            TerminateMessage terminate = WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_TAGGED, TerminateMessage.DDP_T_ECODE_BASE_BOUNDS),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_BASE_BOUNDS),
                    term(LAYER_LLP, TerminateMessage.LLP_ETYPE_MPA, TerminateMessage.MPA_ECODE_CRC_ERROR));
            s.wire().assertReceiveFailed(RECV_ID);
            s.target().assertGuardsIntact();
            // the last 64 bytes lie inside the region and may have been placed before the error was seen
            byte[] after = s.target().snapshot();
            System.arraycopy(s.targetBefore(), SIZE - 64, after, SIZE - 64, 64);
            Patterns.assertSameBytes(s.targetBefore(), MemorySegment.ofArray(after), "region before the write");
            assertTrue(terminate.ddpHeaderIncluded() || terminate.layer() == LAYER_LLP,
                    () -> "a tagged buffer error names the segment (M and D set, as siw does): " + terminate);
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendLongerThanThePostedReceiveIsTerminatedAsAnUntaggedBufferErrorAndFailsTheReceiveWithLengthError()
            throws Exception {
        Setup s = Setup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.send(s.h().raw().takeSendMsn(), Patterns.bytes(74, 256)));
            TerminateMessage terminate = WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_MESSAGE_TOO_LONG),
                    term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_NO_BUFFER));
            assertTrue(terminate.ddpHeaderIncluded(), () -> "DDP error without the terminated header: " + terminate);
            s.wire().assertReceiveFailed(RECV_ID, WcStatus.LOC_LEN_ERR);
            s.assertInboxUntouchedOutsideTheReceive();
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithNoPostedReceiveIsTerminatedWithNoBufferError() throws Exception {
        try (WireBench wire = WireBench.open()) {
            WireBench.Handshake h = wire.handshake(true, QueuePairSetup.NONE);
            h.raw().sendFpdu(DdpSegment.send(h.raw().takeSendMsn(), Patterns.bytes(75, 16)));
            WireBench.assertTerminatedWith(h,
                    term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_NO_BUFFER));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendOnAnUnknownUntaggedQueueIsTerminatedWithInvalidQueueNumber() throws Exception {
        Setup s = Setup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.untagged(DdpSegment.control(false, true, DdpSegment.OP_SEND), 0, 5, 1, 0,
                    Patterns.bytes(76, 16)));
            s.expectTerminate(term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_INVALID_QN));
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithAnUnexpectedMsnIsTerminatedWithMsnRangeError() throws Exception {
        Setup s = Setup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.send(7, Patterns.bytes(77, 16))); // the first Send must carry MSN 1
            s.expectTerminate(term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_INVALID_MSN_RANGE));
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void secondSegmentOfAWriteNamingAnotherStagIsTerminated() throws Exception {
        Setup s = Setup.open(true);
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
        Setup s = Setup.open(true);
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
    void sendSegmentWithAWrongMessageOffsetIsTerminated() throws Exception {
        Setup s = Setup.open(true);
        try {
            int msn = s.h().raw().takeSendMsn();
            s.h().raw().sendFpdu(DdpSegment.untagged(DdpSegment.control(false, false, DdpSegment.OP_SEND), 0,
                    DdpSegment.QN_SEND, msn, 0, Patterns.bytes(99, 16)));
            s.h().raw().sendFpdu(DdpSegment.untagged(DdpSegment.control(false, true, DdpSegment.OP_SEND), 0,
                    DdpSegment.QN_SEND, msn, 40, Patterns.bytes(100, 16))); // MO should be 16
            WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_INVALID_MO));
            s.wire().assertReceiveFailed(RECV_ID);
            s.assertInboxUntouchedOutsideTheReceive();
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithInvalidateNamingARegionOfAnotherProtectionDomainIsTerminatedAndInvalidatesNothing()
            throws Exception {
        Setup s = Setup.open(true);
        try {
            ProtectionDomain other = s.wire().bench().track(s.wire().bench().device().allocatePd());
            GuardedRegion foreign = GuardedRegion.register(s.wire().bench().arena(), other, 64,
                    EnumSet.allOf(AccessFlag.class));
            s.h().raw().sendFpdu(DdpSegment.sendWithInvalidate(s.h().raw().takeSendMsn(), foreign.rkey(),
                    Patterns.bytes(101, 8)));
            // siw_invalidate_stag() refuses a PD mismatch with -EACCES: RDMAP remote protection, cannot invalidate
            WireBench.assertTerminatedWith(s.h(), term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
                    TerminateMessage.RDMAP_ECODE_CANNOT_INVALIDATE));
            s.wire().assertReceiveFailed(RECV_ID);
            assertTrue(foreign.region().isValid(), "a peer invalidated a region of another protection domain");
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedWriteToAnUnknownStagIsTerminatedWithInvalidStagAndReportsTheSegment() throws Exception {
        Setup s = Setup.open(true);
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
        Setup s = Setup.open(true);
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

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithInvalidateOfARegisteredRegionIsTerminatedAndTheRegionStaysValid() throws Exception {
        // issue F1: a peer named the STag of a registered region in a Send with Invalidate and switched it off
        // for every connection; a registered region is never remotely invalidatable (IBA; rxe_invalidate_mr())
        Setup s = Setup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.sendWithInvalidate(s.h().raw().takeSendMsn(), s.target().rkey(),
                    Patterns.bytes(79, 8)));
            TerminateMessage terminate = WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_CANNOT_INVALIDATE));
            assertTrue(terminate.ddpHeaderIncluded(), () -> "the refused Send is named: " + terminate);
            s.wire().assertReceiveFailed(RECV_ID, WcStatus.REM_INV_REQ_ERR);
            assertTrue(s.target().region().isValid(), "region a peer tried to invalidate");
            Patterns.assertSameBytes(s.targetBefore(), s.target().segment(), "target region");
        } finally {
            s.close();
        }
    }

    @ParameterizedTest(name = "offset {0}")
    @ValueSource(longs = {SIZE - 32, -16, SIZE, -256})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void taggedWriteOutsideTheRegionIsTerminatedWithBaseOrBoundsError(long offset) throws Exception {
        Setup s = Setup.open(true);
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
        Setup s = Setup.open(true);
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

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void untaggedSegmentWithAnUnsupportedDdpVersionIsTerminated() throws Exception {
        Setup s = Setup.open(true);
        try {
            int control = DdpSegment.LAST | (0 << 8) | DdpSegment.RDMAP_VERSION_1 | DdpSegment.OP_SEND;
            s.h().raw().sendFpdu(DdpSegment.untagged(control, 0, DdpSegment.QN_SEND, 1, 0, Patterns.bytes(87, 16)));
            s.expectTerminate(term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_INVALID_VERSION));
        } finally {
            s.close();
        }
    }

    @ParameterizedTest(name = "RDMAP version {0}")
    @ValueSource(ints = {0, 2, 3})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void segmentWithAnUnsupportedRdmapVersionIsTerminated(int version) throws Exception {
        Setup s = Setup.open(true);
        try {
            int control = DdpSegment.TAGGED | DdpSegment.LAST | DdpSegment.DDP_VERSION_1 | (version << 6)
                    | DdpSegment.OP_RDMA_WRITE;
            s.h().raw().sendFpdu(DdpSegment.tagged(control, s.target().rkey(), s.target().address(0),
                    Patterns.bytes(88, 64)));
            s.expectTerminate(term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
                    TerminateMessage.RDMAP_ECODE_INVALID_VERSION));
        } finally {
            s.close();
        }
    }

    @ParameterizedTest(name = "opcode {0}")
    @ValueSource(ints = {8, 0xb, 0xf})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void segmentWithAnInvalidRdmapOpcodeIsTerminatedWithUnexpectedOpcode(int opcode) throws Exception {
        Setup s = Setup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.untagged(DdpSegment.control(false, true, opcode), 0, DdpSegment.QN_SEND,
                    1, 0, Patterns.bytes(89, 16)));
            s.expectTerminate(term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
                    TerminateMessage.RDMAP_ECODE_UNEXPECTED_OPCODE));
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readResponseNobodyAskedForIsTerminated() throws Exception {
        Setup s = Setup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.tagged(DdpSegment.control(true, true, DdpSegment.OP_READ_RESPONSE),
                    s.target().rkey(), s.target().address(0), Patterns.bytes(90, 64)));
            // RFC 5040 names it an unexpected opcode; siw reports a DDP catastrophic error (siw_proc_rresp)
            s.expectTerminate(
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION, TerminateMessage.RDMAP_ECODE_UNEXPECTED_OPCODE),
                    term(LAYER_DDP, DDP_ETYPE_CATASTROPHIC, 0));
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readRequestForARegionWithoutRemoteReadIsTerminatedWithAccessRightsError() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion writeOnly = wire.provider().register(SIZE, AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE)
                    .fill(91);
            WireBench.Handshake h = wire.handshake(true, QueuePairSetup.NONE);
            h.raw().sendFpdu(DdpSegment.readRequest(h.raw().takeReadRequestMsn(), 0x1000, 0, 256, writeOnly.rkey(),
                    writeOnly.address(0)));
            TerminateMessage terminate = WireBench.assertTerminatedWith(h,
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_ACCESS_RIGHTS));
            assertTrue(terminate.rdmapHeaderIncluded(), () -> "RDMAP protection error without the Read Request "
                    + "header (siw_send_terminate attaches it): " + terminate);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readRequestWithAnUnknownStagIsTerminatedWithInvalidStag() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion gone = wire.provider().registerOpen(SIZE);
            gone.close();
            WireBench.Handshake h = wire.handshake(true, QueuePairSetup.NONE);
            h.raw().sendFpdu(DdpSegment.readRequest(h.raw().takeReadRequestMsn(), 0x1000, 0, 256, gone.rkey(),
                    gone.address(0)));
            WireBench.assertTerminatedWith(h,
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_INVALID_STAG));
        }
    }

    @ParameterizedTest(name = "offset {0}")
    @ValueSource(longs = {SIZE - 100, -8})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readRequestOutsideTheRegionIsTerminatedWithBaseOrBoundsError(long offset) throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion source = wire.provider().register(SIZE, AccessFlag.REMOTE_READ).fill(92);
            WireBench.Handshake h = wire.handshake(true, QueuePairSetup.NONE);
            h.raw().sendFpdu(DdpSegment.readRequest(h.raw().takeReadRequestMsn(), 0x1000, 0, 256, source.rkey(),
                    source.address(offset)));
            WireBench.assertTerminatedWith(h,
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_BASE_BOUNDS));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithInvalidateOfAnUnknownStagIsTerminatedWithCannotInvalidate() throws Exception {
        Setup s = Setup.open(true);
        try {
            GuardedRegion gone = s.wire().provider().registerOpen(64);
            gone.close();
            s.h().raw().sendFpdu(DdpSegment.sendWithInvalidate(s.h().raw().takeSendMsn(), gone.rkey(),
                    Patterns.bytes(93, 8)));
            WireBench.assertTerminatedWith(s.h(),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION, TerminateMessage.RDMAP_ECODE_CANNOT_INVALIDATE),
                    term(LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION, TerminateMessage.RDMAP_ECODE_CANNOT_INVALIDATE));
            s.wire().assertReceiveFailed(RECV_ID);
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void peerThatResetsItsSocketDuringALargeReadResponseEndsTheConnectionAndFlushesReceives() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion source = wire.provider().register(16 << 20, AccessFlag.REMOTE_READ).fill(94);
            GuardedRegion inbox = wire.provider().registerOpen(64);
            WireBench.Handshake h = wire.handshake(false, WireBench.postReceive(RECV_ID, inbox, 0, 64));
            h.raw().sendFpdu(DdpSegment.readRequest(h.raw().takeReadRequestMsn(), 0x1000, 0, 16 << 20, source.rkey(),
                    source.address(0)));
            h.raw().readFpdu(TIMEOUT); // the response is under way
            h.raw().reset();

            DisconnectEvent end = Loopback.awaitDisconnect(h.provider());
            assertTrue(end.cause() == DisconnectEvent.Cause.TRANSPORT_ERROR
                    || end.cause() == DisconnectEvent.Cause.PEER_DISCONNECT, end::toString);
            wire.assertReceiveFailed(RECV_ID, WcStatus.WR_FLUSH_ERR);
            source.assertGuardsIntact();
            // and the listener still serves
            assertTrue(wire.bench().connect().client().isConnected());
        }
    }
}
