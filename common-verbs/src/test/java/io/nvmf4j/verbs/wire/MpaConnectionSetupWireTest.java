package io.nvmf4j.verbs.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.QueuePairSetup;
import io.nvmf4j.verbs.conformance.Loopback;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
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
