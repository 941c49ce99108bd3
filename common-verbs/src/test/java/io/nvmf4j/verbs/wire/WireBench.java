package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DisconnectEvent;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.conformance.Endpoint;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.ProviderUnderTest;
import io.nvmf4j.verbs.conformance.WorkRequests;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A softiwarp listener (the provider under test, on the {@link Loopback} bench's server endpoint) and a
 * {@link RawIwarpInitiator} that talks to it with hand-built bytes.
 */
final class WireBench implements AutoCloseable {
    /** ULP private data of the hand-built requests and of the provider's replies. */
    static final byte[] REQUEST_PRIVATE_DATA = "nvmf4j raw initiator".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REPLY_PRIVATE_DATA = "softiwarp reply".getBytes(StandardCharsets.US_ASCII);

    /** A connection set up by hand: the raw side, the provider's side, and the MPA reply it sent. */
    record Handshake(RawIwarpInitiator raw, RdmaConnection provider, MpaConnectionFrame reply) {
    }

    private final Loopback bench;

    private WireBench(Loopback bench) {
        this.bench = bench;
    }

    static WireBench open() throws Exception {
        return new WireBench(Loopback.open(new ProviderUnderTest(RdmaProviders.byName("softiwarp"))));
    }

    Loopback bench() {
        return bench;
    }

    /** The provider's side: protection domain, completion queue, guarded regions. */
    Endpoint provider() {
        return bench.server();
    }

    RawIwarpInitiator connectRaw() throws Exception {
        return bench.track(RawIwarpInitiator.connect(bench.listener().localAddress(), TIMEOUT));
    }

    /**
     * Sends a well-formed MPA v2 enhanced request (IRD = ORD = 16, no peer-to-peer), lets the provider accept it
     * with {@code setup} run before its reply, reads and checks the reply, and switches the raw side to the
     * negotiated CRC mode.
     */
    Handshake handshake(boolean crc, QueuePairSetup setup) throws Exception {
        RawIwarpInitiator raw = connectRaw();
        raw.write(MpaConnectionFrame.enhancedRequest(crc, 16, 16, REQUEST_PRIVATE_DATA));
        ConnectRequest request = bench.listener().accept(TIMEOUT);
        assertNotNull(request, "the provider did not surface a valid hand-built MPA request");
        assertArrayEquals(REQUEST_PRIVATE_DATA, request.privateData(), "ULP private data of the request");
        assertEquals(16, request.peerIrd());
        assertEquals(16, request.peerOrd());
        RdmaConnection connection = bench.track(request.accept(new AcceptParams(provider().pd(), provider().cq(),
                provider().cq(), QueuePairAttributes.defaults(), REPLY_PRIVATE_DATA, setup)));
        MpaConnectionFrame reply = raw.readConnectionFrame(TIMEOUT);
        assertTrue(reply.isReplyKey(), () -> "reply key of " + reply);
        assertEquals(2, reply.revision(), "reply revision");
        assertTrue(reply.enhanced(), "RFC 6581: an enhanced request gets an enhanced reply");
        assertFalse(reply.reject(), "reply to a valid request rejected: " + reply);
        assertFalse(reply.markers(), "markers in the reply: " + reply);
        assertEquals(crc, reply.crc(), "RFC 5044, 7.1: CRC is used when either side asks for it; none asked "
                + "otherwise with default settings");
        assertArrayEquals(REPLY_PRIVATE_DATA, reply.ulpPrivateData(), "ULP private data of the reply");
        assertTrue(reply.ord() <= 16, "reply ORD " + reply.ord() + " above the IRD we offered");
        raw.crc(reply.crc());
        return new Handshake(raw, connection, reply);
    }

    /** A setup hook posting one receive of {@code length} bytes at {@code offset} of {@code region}. */
    static QueuePairSetup postReceive(long wrId, GuardedRegion region, long offset, int length) {
        return qp -> qp.postReceive(WorkRequests.receive(wrId, region, offset, length));
    }

    /**
     * The provider answered bad input correctly: a Terminate with one of the expected {layer, etype, ecode}
     * triples, then the stream closed; its connection ended with TERMINATE_SENT.
     */
    static TerminateMessage assertTerminatedWith(Handshake h, int[]... expected) throws Exception {
        TerminateMessage terminate = h.raw().awaitTerminate(TIMEOUT);
        boolean matches = Arrays.stream(expected).anyMatch(e -> e[0] == terminate.layer()
                && e[1] == terminate.errorType() && e[2] == terminate.errorCode());
        if (!matches) {
            fail("Terminate " + terminate + " is none of " + Arrays.deepToString(expected));
        }
        assertEquals(DdpSegment.QN_TERMINATE, terminate.queueNumber(), "RFC 5040, 5.1: Terminates use queue 2");
        assertEquals(1, terminate.msn(), "the first (and only) Terminate of the stream has MSN 1");
        assertEquals(0, terminate.messageOffset(), "Terminate MO");
        RawIwarpInitiator.CloseOutcome close = h.raw().awaitClose(TIMEOUT);
        assertTrue(close.closed(), "the provider kept the stream open after its Terminate");
        DisconnectEvent end = Loopback.awaitDisconnect(h.provider());
        assertEquals(DisconnectEvent.Cause.TERMINATE_SENT, end.cause(), end.detail());
        return terminate;
    }

    /** The receive the setup hook posted completed, and not as a success. */
    void assertReceiveFailed(long wrId, WcStatus... allowed) throws InterruptedException {
        WorkCompletion wc = provider().awaitCompletion(TIMEOUT);
        assertEquals(wrId, wc.wrId(), wc::toString);
        assertNotEquals(WcStatus.SUCCESS, wc.status(), wc::toString);
        if (allowed.length > 0) {
            assertTrue(Arrays.asList(allowed).contains(wc.status()),
                    () -> wc + " is none of " + Arrays.toString(allowed));
        }
    }

    static int[] term(int layer, int etype, int ecode) {
        return new int[] {layer, etype, ecode};
    }

    @Override
    public void close() {
        bench.close();
    }
}
