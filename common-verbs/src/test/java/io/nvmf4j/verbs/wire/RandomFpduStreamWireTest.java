package io.nvmf4j.verbs.wire;

import static io.nvmf4j.verbs.conformance.Loopback.TIMEOUT;
import static io.nvmf4j.verbs.conformance.WorkRequests.assertSuccess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.conformance.GuardedRegion;
import io.nvmf4j.verbs.conformance.Loopback;
import io.nvmf4j.verbs.conformance.Patterns;
import io.nvmf4j.verbs.conformance.WorkRequests;
import io.nvmf4j.verbs.softiwarp.RejectedPeers;
import io.nvmf4j.verbs.softiwarp.SoftiwarpDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hostile peer that speaks MPA correctly and then sends streams of FPDUs whose DDP/RDMAP fields are random
 * (opcode, flags, versions, STag - sometimes a real one -, TO, QN, MSN, MO, Read Request fields, lengths, cut
 * short). Whatever arrives, the provider ends that connection or waits for more bytes: no exception reaches the
 * engine (ENGINE_FAILURE stays 0), nothing is placed outside the registered memory, and a well-behaved connection
 * on the same device still works afterwards. Seeded: a failure names its seed.
 */
class RandomFpduStreamWireTest {
    private static final int SIZE = 4096;
    private static final int CONNECTIONS = Integer.getInteger("nvmf4j.test.randomFpduConnections", 60);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void randomFpduFieldsNeverEscapeTheConnectionTheyArriveOn() throws Exception {
        try (WireBench wire = WireBench.open()) {
            GuardedRegion target = wire.provider().registerOpen(SIZE).fill(3);
            GuardedRegion bindable = wire.provider().register(SIZE, AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);
            MemoryWindow window = wire.bench().track(wire.provider().pd().allocateWindow());
            int windowKey = window.bind(bindable.region(), 1024, 1024,
                    EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
            GuardedRegion inbox = wire.provider().registerOpen(SIZE);
            int[] stags = {target.rkey(), windowKey, inbox.rkey(), 0, 1};
            long[] addresses = {target.address(0), bindable.address(1024), inbox.address(0)};
            for (int c = 0; c < CONNECTIONS; c++) {
                long seed = 0x5eed0000L + c;
                SplittableRandom random = new SplittableRandom(seed);
                WireBench.Handshake h = wire.handshake(random.nextBoolean(),
                        WireBench.postReceive(100 + c, inbox, 0, 256));
                try {
                    for (int f = 0; f < 1 + random.nextInt(6); f++) {
                        h.raw().write(randomFpdu(random, h.raw(), stags, addresses));
                    }
                } catch (IOException closed) {
                    // the provider already ended the connection
                }
                h.raw().awaitClose(java.time.Duration.ofMillis(100));
                h.raw().close();
                target.assertGuardsIntact();
                bindable.assertGuardsIntact();
                inbox.assertGuardsIntact();
                Loopback.awaitDisconnect(h.provider());
                drain(wire);
            }
            RejectedPeers rejected = ((SoftiwarpDevice) wire.bench().device()).rejectedPeers();
            assertEquals(0, rejected.count(RejectedPeers.Reason.ENGINE_FAILURE), rejected::toString);

            // the device still serves a well-behaved connection
            Loopback.Pair pair = wire.bench().connect();
            GuardedRegion in = wire.bench().client().registerOpen(64);
            GuardedRegion out = wire.provider().registerOpen(64).fill(9);
            pair.client().queuePair().postReceive(WorkRequests.receive(1, in, 0, 64));
            pair.server().queuePair().postSend(WorkRequests.send(2, out, 0, 64));
            assertSuccess(wire.provider().awaitCompletion(TIMEOUT), 2, WcOpcode.SEND);
            WorkCompletion received = wire.bench().client().awaitCompletion(TIMEOUT);
            assertSuccess(received, 1, WcOpcode.RECV);
            Patterns.assertSameBytes(out.segment(), in.segment(), "payload after the random streams");
        }
    }

    private static void drain(WireBench wire) {
        WorkCompletion[] wc = {new WorkCompletion()};
        while (wire.provider().cq().poll(wc) > 0) {
            assertTrue(wc[0].wrId() >= 100 || wc[0].wrId() < 0, wc[0]::toString);
        }
    }

    /** One FPDU (framed, CRC as negotiated or wrong) with random but mostly plausible DDP/RDMAP fields. */
    private static byte[] randomFpdu(SplittableRandom r, RawIwarpInitiator raw, int[] stags, long[] addresses) {
        int[] likely = {0, 0, 0, 1, 1, 2, 3, 3, 3, 4, 5, 6, 7};
        int opcode = r.nextInt(10) == 0 ? r.nextInt(16) : likely[r.nextInt(likely.length)];
        boolean tagged = r.nextInt(10) == 0 ? r.nextBoolean()
                : opcode == DdpSegment.OP_RDMA_WRITE || opcode == DdpSegment.OP_READ_RESPONSE;
        int control = DdpSegment.control(tagged, r.nextInt(4) != 0, opcode);
        if (r.nextInt(20) == 0) {
            control ^= 1 << r.nextInt(16); // a flipped version, reserved or flag bit
        }
        int stag = r.nextInt(3) == 0 ? r.nextInt() : stags[r.nextInt(stags.length)];
        long to = r.nextInt(3) == 0 ? r.nextLong() : addresses[r.nextInt(addresses.length)] + r.nextInt(-64, 4096);
        byte[] payload = new byte[r.nextInt(4) == 0 ? 0 : r.nextInt(1, 300)];
        r.nextBytes(payload);
        byte[] ulpdu;
        if (tagged) {
            ulpdu = DdpSegment.tagged(control, stag, to, payload);
        } else if (opcode == DdpSegment.OP_READ_REQUEST && r.nextBoolean()) {
            ulpdu = ByteBuffer.allocate(DdpSegment.READ_REQUEST_HEADER_LENGTH)
                    .putShort((short) control).putInt(0).putInt(DdpSegment.QN_READ_REQUEST)
                    .putInt(r.nextInt(4) == 0 ? r.nextInt() : raw.takeReadRequestMsn()).putInt(0)
                    .putInt(stags[r.nextInt(stags.length)]).putLong(addresses[r.nextInt(addresses.length)])
                    .putInt(r.nextInt(3) == 0 ? r.nextInt() : r.nextInt(0, 2048)).putInt(stag).putLong(to).array();
        } else {
            int rightQn = opcode == DdpSegment.OP_READ_REQUEST ? DdpSegment.QN_READ_REQUEST
                    : opcode == DdpSegment.OP_TERMINATE ? DdpSegment.QN_TERMINATE : DdpSegment.QN_SEND;
            int qn = r.nextInt(8) == 0 ? (r.nextBoolean() ? r.nextInt() : r.nextInt(3)) : rightQn;
            int msn = r.nextInt(5) == 0 ? r.nextInt() : raw.takeSendMsn();
            int mo = r.nextInt(5) == 0 ? r.nextInt() : 0;
            ulpdu = DdpSegment.untagged(control, stag, qn, msn, mo, payload);
        }
        int declared = r.nextInt(10) == 0 ? r.nextInt(0, ulpdu.length + 64) : ulpdu.length;
        byte[] framed = Fpdu.frame(ulpdu, declared, raw.crc(), r.nextInt(10) == 0);
        if (r.nextInt(10) == 0) {
            return java.util.Arrays.copyOf(framed, r.nextInt(framed.length)); // cut short
        }
        return framed;
    }
}
