package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.wire.MalformedFpduSetup.RECV_ID;
import static io.nvmf4j.verbs.wire.TerminateMessage.DDP_ETYPE_UNTAGGED;
import static io.nvmf4j.verbs.wire.TerminateMessage.LAYER_DDP;
import static io.nvmf4j.verbs.wire.WireBench.term;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.conformance.Patterns;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Malformed untagged DDP segments (RFC 5041, 5 and 7.2): a Send longer than the posted receive or with none posted, an
 * unknown queue number, an MSN or a message offset out of order, an unsupported DDP version. The contract each test
 * checks is the one {@link MalformedFpduWireTest} states.
 */
class MalformedUntaggedDdpWireTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendLongerThanThePostedReceiveIsTerminatedAsAnUntaggedBufferErrorAndFailsTheReceiveWithLengthError()
            throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            s.h().raw().sendFpdu(DdpSegment.send(7, Patterns.bytes(77, 16))); // the first Send must carry MSN 1
            s.expectTerminate(term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_INVALID_MSN_RANGE));
        } finally {
            s.close();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void sendSegmentWithAWrongMessageOffsetIsTerminated() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
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
    void untaggedSegmentWithAnUnsupportedDdpVersionIsTerminated() throws Exception {
        MalformedFpduSetup s = MalformedFpduSetup.open(true);
        try {
            int control = DdpSegment.LAST | (0 << 8) | DdpSegment.RDMAP_VERSION_1 | DdpSegment.OP_SEND;
            s.h().raw().sendFpdu(DdpSegment.untagged(control, 0, DdpSegment.QN_SEND, 1, 0, Patterns.bytes(87, 16)));
            s.expectTerminate(term(LAYER_DDP, DDP_ETYPE_UNTAGGED, TerminateMessage.DDP_UT_ECODE_INVALID_VERSION));
        } finally {
            s.close();
        }
    }
}
