package io.nvmf4j.verbs.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.Patterns;
import io.nvmf4j.verbs.conformance.WorkRequests;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hand-built MPA connection setup frames (RFC 5044, 7.1; RFC 6581) sent to a softiwarp listener from a plain
 * socket. A frame the provider cannot accept is answered, at most, with an MPA reply carrying the Reject flag,
 * and the TCP connection is closed; the listener never surfaces it as a connect request and keeps serving.
 * Linux siw answers markers (and a too-short RFC 6581 private data) with a reject frame and closes without a
 * frame on a bad key, revision or length (siw_proc_mpareq(), siw_recv_mpa_rr()).
 */
class MpaConnectionSetupWireTest {
    private static final Duration QUIET = Duration.ofMillis(300);

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void enhancedRequestIsAnsweredWithAnEnhancedReplyCarryingIrdOrdAndPrivateData() throws Exception {
        try (WireBench wire = WireBench.open()) {
            WireBench.Handshake h = wire.handshake(false, QueuePairSetup.NONE);
            assertFalse(h.reply().crc());
            assertArrayEquals(WireBench.REQUEST_PRIVATE_DATA, h.provider().peerPrivateData(),
                    "the accepted connection exposes the request's ULP private data");
            assertTrue(h.provider().isConnected());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestBytesCapturedFromLinuxNvmeRdmaOverSiwAreAccepted() throws Exception {
        // interop lab: the 56 bytes a guest kernel nvme-rdma host sent over siw (IRD 128, ORD 0, then the
        // 32-byte NVMe-oF RDMA CM request: recfmt 0, qid 0, hrqsize 32, hsqsize 31)
        byte[] captured = HexFormat.of().parseHex("4d504120494420526571204672616d65" + "10020024"
                + "00800000" + "0000000020001f00" + "00".repeat(24));
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            raw.write(captured);
            ConnectRequest request = wire.bench().listener().accept(Loopback.TIMEOUT);
            assertTrue(request != null, "the listener did not surface Linux's MPA request");
            assertArrayEquals(Arrays.copyOfRange(captured, 24, 56), request.privateData(), "NVMe-oF CM request");
            assertEquals(128, request.peerIrd());
            assertEquals(0, request.peerOrd());
            wire.bench().track(request.accept(new AcceptParams(wire.provider().pd(),
                    wire.provider().cq(), wire.provider().cq(), QueuePairAttributes.defaults(),
                    new byte[] {0, 0, 0x20, 0})));
            MpaConnectionFrame reply = raw.readConnectionFrame(Loopback.TIMEOUT);
            assertTrue(reply.isReplyKey() && !reply.reject() && reply.enhanced() && !reply.crc(), reply::toString);
            assertEquals(2, reply.revision());
            // RFC 6581, 5.2: the responder's IRD covers the initiator's ORD (0), its ORD stays within the
            // initiator's IRD (128) and what the accepting side asked for (16)
            assertTrue(reply.ird() >= 0 && reply.ord() <= 16, reply.ird() + "/" + reply.ord());
            assertArrayEquals(new byte[] {0, 0, 0x20, 0}, reply.ulpPrivateData());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void revisionOneRequestWithoutIrdOrdIsAcceptedWithARevisionOneReplyAndCarriesData() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion inbox = wire.provider().registerOpen(64);
            RawIwarpInitiator raw = wire.connectRaw();
            raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY, 0, 1,
                    WireBench.REQUEST_PRIVATE_DATA.length, WireBench.REQUEST_PRIVATE_DATA));
            ConnectRequest request = wire.bench().listener().accept(Loopback.TIMEOUT);
            assertTrue(request != null, "the listener did not surface an MPA revision 1 request");
            assertArrayEquals(WireBench.REQUEST_PRIVATE_DATA, request.privateData());
            assertEquals(-1, request.peerIrd(), "MPA v1 says nothing about IRD");
            assertEquals(-1, request.peerOrd(), "MPA v1 says nothing about ORD");
            RdmaConnection connection = wire.bench().track(request.accept(
                    new AcceptParams(wire.provider().pd(), wire.provider().cq(), wire.provider().cq(),
                            QueuePairAttributes.defaults(), WireBench.REPLY_PRIVATE_DATA,
                            WireBench.postReceive(1, inbox, 0, 64))));
            MpaConnectionFrame reply = raw.readConnectionFrame(Loopback.TIMEOUT);
            assertTrue(reply.isReplyKey() && !reply.reject(), reply::toString);
            assertEquals(1, reply.revision(), "RFC 6581, 5: a revision 1 request gets a revision 1 reply");
            assertFalse(reply.enhanced(), reply::toString);
            assertArrayEquals(WireBench.REPLY_PRIVATE_DATA, reply.privateData(), "v1 reply: no IRD/ORD words");
            raw.crc(reply.crc());
            byte[] payload = Patterns.bytes(60, 24);
            raw.sendFpdu(DdpSegment.send(raw.takeSendMsn(), payload));
            WorkCompletion wc = wire.provider().awaitCompletion(Loopback.TIMEOUT);
            WorkRequests.assertSuccess(wc, 1, WcOpcode.RECV);
            Patterns.assertSameBytes(payload, inbox.segment().asSlice(0, 24), "Send");
            assertTrue(connection.isConnected());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void largestPrivateDataAnMpaV2FrameCarriesTravelsBothWaysAndOneByteMoreIsRefused() throws Exception {
        // RFC 5044, 7.1: at most 512 bytes of private data; RFC 6581 takes 4 of them for IRD/ORD
        try (WireBench wire = WireBench.open()) {
            byte[] request = Patterns.bytes(61, 508);
            byte[] reply = Patterns.bytes(62, 508);
            Loopback.Pair pair = wire.bench().connect(QueuePairAttributes.defaults(), QueuePairAttributes.defaults(),
                    request, reply);
            assertArrayEquals(request, pair.server().peerPrivateData());
            assertArrayEquals(reply, pair.client().peerPrivateData());

            ConnectParams tooMuch = new ConnectParams(wire.bench().client().pd(), wire.bench().client().cq(),
                    wire.bench().client().cq(), QueuePairAttributes.defaults(), new byte[509]);
            VerbsException refused = assertThrows(VerbsException.class, () -> wire.bench().device()
                    .connectionManager().connect(wire.bench().listener().localAddress(), tooMuch, Loopback.TIMEOUT));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, refused.code(), refused::getMessage);
            assertNull(wire.bench().listener().accept(QUIET), "an oversized request reached the listener");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void applicationRejectIsAnMpaReplyWithTheRejectFlagCarryingItsPrivateDataThenClose() throws Exception {
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            raw.write(MpaConnectionFrame.enhancedRequest(false, 16, 16, WireBench.REQUEST_PRIVATE_DATA));
            ConnectRequest request = wire.bench().listener().accept(Loopback.TIMEOUT);
            assertTrue(request != null, "request");
            byte[] nvmeReject = {0x00, 0x00, 0x06, 0x00}; // NVMe-oF RDMA CM reject: recfmt 0, status 6
            request.reject(nvmeReject);
            MpaConnectionFrame reply = raw.readConnectionFrame(Loopback.TIMEOUT);
            assertTrue(reply.isReplyKey(), reply::toString);
            assertTrue(reply.reject(), () -> "an application reject must set R: " + reply);
            // siw_reject(): an enhanced request gets the IRD/ORD words before the ULP's reject data
            byte[] ulp = reply.revision() == 2 && reply.enhanced() ? reply.ulpPrivateData() : reply.privateData();
            assertArrayEquals(nvmeReject, ulp, "reject private data as the initiator's ULP sees it");
            assertTrue(raw.awaitClose(Loopback.TIMEOUT).closed(), "stream open after the reject");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void peerToPeerRequestOfferingWriteRtrIsAnsweredWithWriteRtrAndAZeroLengthWriteOpensTheStream()
            throws Exception {
        // RFC 6581, 5.1: P in the IRD word asks for peer-to-peer mode, the ORD word's RTR bits offer zero-length
        // Write (0x8000) and Read (0x4000); siw_proc_mpareq() picks Write when offered; nvmet over siw answered
        // 8010 8010 (interop lab)
        try (WireBench wire = WireBench.open()) {
            GuardedRegion inbox = wire.provider().registerOpen(64);
            RawIwarpInitiator raw = wire.connectRaw();
            byte[] pd = ByteBuffer.allocate(4 + WireBench.REQUEST_PRIVATE_DATA.length)
                    .putShort((short) (MpaConnectionFrame.IRD_PEER_TO_PEER | 16))
                    .putShort((short) (MpaConnectionFrame.ORD_WRITE_RTR | MpaConnectionFrame.ORD_READ_RTR | 16))
                    .put(WireBench.REQUEST_PRIVATE_DATA).array();
            raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY, MpaConnectionFrame.FLAG_ENHANCED, 2,
                    pd.length, pd));
            ConnectRequest request = wire.bench().listener().accept(Loopback.TIMEOUT);
            assertTrue(request != null, "peer-to-peer request not surfaced");
            assertArrayEquals(WireBench.REQUEST_PRIVATE_DATA, request.privateData());
            RdmaConnection connection = wire.bench().track(request.accept(new AcceptParams(wire.provider().pd(),
                    wire.provider().cq(), wire.provider().cq(), QueuePairAttributes.defaults(),
                    WireBench.REPLY_PRIVATE_DATA, WireBench.postReceive(1, inbox, 0, 64))));
            MpaConnectionFrame reply = raw.readConnectionFrame(Loopback.TIMEOUT);
            assertTrue(reply.isReplyKey() && reply.enhanced() && !reply.reject(), reply::toString);
            int irdWord = (reply.privateData()[0] & 0xff) << 8 | (reply.privateData()[1] & 0xff);
            int ordWord = (reply.privateData()[2] & 0xff) << 8 | (reply.privateData()[3] & 0xff);
            assertTrue((irdWord & MpaConnectionFrame.IRD_PEER_TO_PEER) != 0, "reply IRD word lacks P: " + irdWord);
            assertEquals(MpaConnectionFrame.ORD_WRITE_RTR, ordWord & 0xc000, "the responder picks one RTR: Write");
            assertArrayEquals(WireBench.REPLY_PRIVATE_DATA, reply.ulpPrivateData());

            // the RTR: a zero-length RDMA Write (siw_qp_mpa_rts: STag 1, TO 0), then ordinary traffic
            raw.sendFpdu(DdpSegment.rdmaWrite(1, 0, new byte[0]));
            byte[] payload = Patterns.bytes(63, 20);
            raw.sendFpdu(DdpSegment.send(raw.takeSendMsn(), payload));
            WorkCompletion wc = wire.provider().awaitCompletion(Loopback.TIMEOUT);
            WorkRequests.assertSuccess(wc, 1, WcOpcode.RECV);
            Patterns.assertSameBytes(payload, inbox.segment().asSlice(0, 20), "Send after the RTR");
            assertTrue(connection.isConnected());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void peerToPeerRequestOfferingOnlyReadRtrGetsAZeroLengthReadResponseToItsRtr() throws Exception {
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            byte[] pd = ByteBuffer.allocate(4).putShort((short) (MpaConnectionFrame.IRD_PEER_TO_PEER | 16))
                    .putShort((short) (MpaConnectionFrame.ORD_READ_RTR | 16)).array();
            raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY, MpaConnectionFrame.FLAG_ENHANCED, 2,
                    pd.length, pd));
            ConnectRequest request = wire.bench().listener().accept(Loopback.TIMEOUT);
            assertTrue(request != null, "peer-to-peer request not surfaced");
            wire.bench().track(request.accept(new AcceptParams(wire.provider().pd(), wire.provider().cq(),
                    wire.provider().cq(), QueuePairAttributes.defaults(), new byte[0])));
            MpaConnectionFrame reply = raw.readConnectionFrame(Loopback.TIMEOUT);
            int ordWord = (reply.privateData()[2] & 0xff) << 8 | (reply.privateData()[3] & 0xff);
            assertEquals(MpaConnectionFrame.ORD_READ_RTR, ordWord & 0xc000, "only Read RTR was offered");

            // the RTR: a zero-length RDMA Read Request; the answer is a zero-length Read Response to our sink
            raw.sendFpdu(DdpSegment.readRequest(raw.takeReadRequestMsn(), 0x00000a01, 0x2000, 0, 1, 0));
            byte[] response = raw.readFpdu(Loopback.TIMEOUT).ulpdu();
            assertEquals(DdpSegment.control(true, true, DdpSegment.OP_READ_RESPONSE), DdpSegment.controlOf(response));
            ByteBuffer header = ByteBuffer.wrap(response, 2, 12);
            assertEquals(0x00000a01, header.getInt(), "Read Response sink STag");
            assertEquals(0x2000, header.getLong(), "Read Response sink TO");
            assertEquals(DdpSegment.TAGGED_HEADER_LENGTH, response.length, "zero-length Read Response");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestAskingForCrcIsAnsweredWithCrc() throws Exception {
        try (WireBench wire = WireBench.open()) {
            WireBench.Handshake h = wire.handshake(true, QueuePairSetup.NONE);
            assertTrue(h.reply().crc(), "RFC 5044, 7.1: CRC MUST be used when the initiator asks for it");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestWithMarkersIsAnsweredWithARejectFrameAndClosed() throws Exception {
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            byte[] pd = MpaConnectionFrame.enhancedPrivateData(16, 16, WireBench.REQUEST_PRIVATE_DATA);
            raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY,
                    MpaConnectionFrame.FLAG_MARKERS | MpaConnectionFrame.FLAG_ENHANCED, 2, pd.length, pd));
            MpaConnectionFrame answer = raw.readConnectionFrame(Loopback.TIMEOUT);
            assertTrue(answer.isReplyKey(), () -> "answer " + answer);
            assertTrue(answer.reject(), () -> "markers are not supported: the reply must carry R: " + answer);
            assertFalse(answer.markers(), () -> "a reject must not claim markers: " + answer);
            assertTrue(raw.awaitClose(Loopback.TIMEOUT).closed(), "stream still open after the reject");
            assertListenerSurfacedNothingAndStillServes(wire);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestWithAGarbageKeyIsRefusedAndClosed() throws Exception {
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            byte[] key = "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);
            byte[] pd = MpaConnectionFrame.enhancedPrivateData(16, 16, new byte[0]);
            raw.write(MpaConnectionFrame.encode(key, MpaConnectionFrame.FLAG_ENHANCED, 2, pd.length, pd));
            assertRefusedAndClosed(raw);
            assertListenerSurfacedNothingAndStillServes(wire);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestWithTheReplyKeyIsRefusedAndClosed() throws Exception {
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            byte[] pd = MpaConnectionFrame.enhancedPrivateData(16, 16, new byte[0]);
            raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REPLY_KEY, MpaConnectionFrame.FLAG_ENHANCED, 2,
                    pd.length, pd));
            assertRefusedAndClosed(raw);
            assertListenerSurfacedNothingAndStillServes(wire);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestWithAnUnsupportedRevisionIsRefusedAndClosed() throws Exception {
        try (WireBench wire = WireBench.open()) {
            for (int revision : new int[] {3, 0xff}) {
                RawIwarpInitiator raw = wire.connectRaw();
                raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY, 0, revision, 0, new byte[0]));
                assertRefusedAndClosed(raw);
            }
            assertListenerSurfacedNothingAndStillServes(wire);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void requestDeclaringMoreThan512BytesOfPrivateDataIsRefusedAndClosed() throws Exception {
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            byte[] pd = new byte[513];
            raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY, 0, 1, pd.length, pd));
            assertRefusedAndClosed(raw);

            RawIwarpInitiator huge = wire.connectRaw();
            huge.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY, 0, 1, 0xffff, new byte[64]));
            assertRefusedAndClosed(huge);
            assertListenerSurfacedNothingAndStillServes(wire);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void enhancedRequestTooShortForTheIrdOrdWordsIsRefusedAndClosed() throws Exception {
        try (WireBench wire = WireBench.open()) {
            RawIwarpInitiator raw = wire.connectRaw();
            raw.write(MpaConnectionFrame.encode(MpaConnectionFrame.REQUEST_KEY, MpaConnectionFrame.FLAG_ENHANCED, 2,
                    2, new byte[] {0, 16}));
            assertRefusedAndClosed(raw);
            assertListenerSurfacedNothingAndStillServes(wire);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void peerThatNeverCompletesItsRequestIsDroppedAfterTheSetupTimeoutWhileOthersConnect() throws Exception {
        String property = "nvmf4j.softiwarp.mpaTimeoutMillis";
        String previous = System.getProperty(property);
        System.setProperty(property, "1500"); // read when the device opens; the default is 10 s
        try (WireBench wire = WireBench.open()) {
            restore(property, previous);
            RawIwarpInitiator stalled = wire.connectRaw();
            stalled.write(Arrays.copyOf(MpaConnectionFrame.REQUEST_KEY, 10)); // 10 of the 20 header bytes
            RawIwarpInitiator silent = wire.connectRaw(); // and one that sends nothing at all

            // the half-open peers hold up nobody
            Loopback.Pair pair = wire.bench().connect();
            assertTrue(pair.client().isConnected());

            long start = System.nanoTime();
            RawIwarpInitiator.CloseOutcome stalledEnd = stalled.awaitClose(Duration.ofSeconds(30));
            RawIwarpInitiator.CloseOutcome silentEnd = silent.awaitClose(Duration.ofSeconds(30));
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(stalledEnd.closed(), "a peer that stopped mid-request was never dropped");
            assertTrue(silentEnd.closed(), "a peer that never sent a request was never dropped");
            assertEquals(0, stalledEnd.bytesBeforeClose().length, "the provider answered half a request");
            assertTrue(waitedMillis < 15_000, "dropped only after " + waitedMillis + " ms");
            assertNull(wire.bench().listener().accept(QUIET), "a half-open peer surfaced as a request");

            Loopback.Pair after = wire.bench().connect();
            assertTrue(after.client().isConnected(), "listener works after dropping half-open peers");
        } finally {
            restore(property, previous);
        }
    }

    /** The provider either closes silently or sends one MPA reply with R set, then closes. */
    private static void assertRefusedAndClosed(RawIwarpInitiator raw) throws Exception {
        RawIwarpInitiator.CloseOutcome outcome = raw.awaitClose(Loopback.TIMEOUT);
        assertTrue(outcome.closed(), "stream still open " + Loopback.TIMEOUT + " after a bad MPA request");
        byte[] bytes = outcome.bytesBeforeClose();
        if (bytes.length > 0) {
            assertTrue(bytes.length >= MpaConnectionFrame.HEADER_LENGTH,
                    "the provider sent " + bytes.length + " bytes that are not an MPA frame");
            MpaConnectionFrame answer = MpaConnectionFrame.decode(bytes, Arrays.copyOfRange(bytes,
                    MpaConnectionFrame.HEADER_LENGTH, bytes.length));
            assertTrue(answer.isReplyKey() && answer.reject(), () -> "answer to a bad request: " + answer);
            assertEquals(MpaConnectionFrame.HEADER_LENGTH + MpaConnectionFrame.declaredPdLength(bytes),
                    bytes.length, "the reject frame's length field");
        }
    }

    private static void assertListenerSurfacedNothingAndStillServes(WireBench wire) throws Exception {
        assertNull(wire.bench().listener().accept(QUIET), "a malformed request surfaced as a connect request");
        Loopback.Pair pair = wire.bench().connect();
        assertTrue(pair.client().isConnected() && pair.server().isConnected(),
                "the listener serves a valid request after a malformed one");
    }

    private static void restore(String property, String previous) {
        if (previous == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, previous);
        }
    }
}
