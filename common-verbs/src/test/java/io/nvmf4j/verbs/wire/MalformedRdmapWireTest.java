package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.wire.MalformedFpduSetup.RECV_ID;
import static io.nvmf4j.verbs.wire.MalformedFpduSetup.SIZE;
import static io.nvmf4j.verbs.wire.TerminateMessage.DDP_ETYPE_CATASTROPHIC;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_DDP;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_RDMAP;
import static io.nvmf4j.verbs.wire.TerminateMessage.RDMAP_ETYPE_REMOTE_OPERATION;
import static io.nvmf4j.verbs.wire.TerminateMessage.RDMAP_ETYPE_REMOTE_PROTECTION;
import static io.nvmf4j.verbs.wire.WireBench.term;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Patterns;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RDMAP errors (RFC 5040, 4 and 7): an unsupported RDMAP version or an invalid opcode, a Read Response nobody asked
 * for, Read Requests the responder must refuse, and Sends with Invalidate naming an STag the peer may not invalidate.
 * The contract each test checks is the one {@link MalformedFpduWireTest} states.
 */
class MalformedRdmapWireTest {

    @ParameterizedTest(name = "RDMAP version {0}")
    @ValueSource(ints = {0, 2, 3})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void segmentWithAnUnsupportedRdmapVersionIsTerminated(int version) throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
    void sendWithInvalidateNamingARegionOfAnotherProtectionDomainIsTerminatedAndInvalidatesNothing()
            throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
    void sendWithInvalidateOfARegisteredRegionIsTerminatedAndTheRegionStaysValid() throws Exception {
        // issue F1: a peer named the STag of a registered region in a Send with Invalidate and switched it off
        // for every connection; a registered region is never remotely invalidatable (IBA; rxe_invalidate_mr())
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendWithInvalidateOfAnUnknownStagIsTerminatedWithCannotInvalidate() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
}
