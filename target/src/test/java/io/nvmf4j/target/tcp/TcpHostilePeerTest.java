package io.nvmf4j.target.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.TransportSglDescriptor;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.FatalErrorStatus;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermReq;
import io.nvmf4j.target.rdma.RejectReason;
import io.nvmf4j.target.rdma.TransportObserver;
import io.nvmf4j.testsupport.Await;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers that break the NVMe/TCP rules, each bounded: answered with a C2HTermReq naming the field in error where
 * one is due, then closed; and while they misbehave, a well-behaved host on the same poll group goes on reading and
 * writing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpHostilePeerTest {

    private static TcpTargetFixture fixture() throws Exception {
        return new TcpTargetFixture(TcpTargetFixture.options().icReqTimeout(Duration.ofMillis(300))
                .connectTimeout(Duration.ofSeconds(5)).commandTimeout(Duration.ofSeconds(2)).build(),
                TransportObserver.NONE);
    }

    @Test
    void connectionThatNeverSendsIcReqIsClosedAfterTheIcReqTimeout() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost silent = new RawTcpHost(f.address)) {
            assertTrue(silent.closedByTarget(), "closed without a word");
            Await.until(() -> f.transport.queueCount() == 0, Duration.ofSeconds(5), "connection gone");
            Await.until(() -> f.transport.unconnectedCount() == 0, Duration.ofSeconds(5), "count released");
        }
    }

    @Test
    void connectionThatNeverConnectsIsClosedAfterTheConnectTimeout() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture(TcpTargetFixture.options()
                .connectTimeout(Duration.ofMillis(500)).build(), TransportObserver.NONE);
             RawTcpHost h = RawTcpHost.initialized(f.address, false, false)) {
            assertTrue(h.closedByTarget(), "closed after its ICReq and no Connect");
            Await.until(() -> f.transport.unconnectedCount() == 0, Duration.ofSeconds(5), "count released");
        }
    }

    @Test
    void firstPduThatIsNotAnIcReqIsAPduSequenceError() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = new RawTcpHost(f.address)) {
            byte[] capsule = new byte[72];
            PduHeader.write(MemorySegment.ofArray(capsule), PduType.CAPSULE_CMD, 0, 0, 72);
            h.send(capsule);
            expectTermination(h, FatalErrorStatus.PDU_SEQUENCE_ERROR, 0);
        }
    }

    @Test
    void icReqOfAnotherPduFormatVersionIsAnUnsupportedParameter() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = new RawTcpHost(f.address)) {
            byte[] icreq = new byte[IcReq.LENGTH];
            new IcReq(1, 0, false, false, 0).encode(MemorySegment.ofArray(icreq));
            h.send(icreq);
            expectTermination(h, FatalErrorStatus.UNSUPPORTED_PARAMETER, IcReq.OFFSET_PFV);
        }
    }

    @Test
    void wrongHlenIsAnInvalidHeaderFieldAtHlen() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = RawTcpHost.initialized(f.address, false, false)) {
            byte[] capsule = h.capsule(h.newSqe(0x18), null);
            capsule[PduHeader.OFFSET_HLEN] = 64;
            h.send(capsule);
            expectTermination(h, FatalErrorStatus.INVALID_HEADER_FIELD, PduHeader.OFFSET_HLEN);
        }
    }

    @Test
    void plenBeyondThePortsInCapsuleDataIsAnInvalidHeaderFieldAtPlen() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = RawTcpHost.initialized(f.address, false, false)) {
            byte[] header = new byte[72];
            // a CapsuleCmd claiming 1 GiB of in-capsule data: refused before a byte of it is read
            PduHeader.write(MemorySegment.ofArray(header), PduType.CAPSULE_CMD, 0, 72, 1L << 30);
            h.send(header);
            expectTermination(h, FatalErrorStatus.INVALID_HEADER_FIELD, PduHeader.OFFSET_PLEN);
        }
    }

    @Test
    void pdoInsideTheHeaderIsAnInvalidHeaderFieldAtPdo() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = RawTcpHost.initialized(f.address, false, false)) {
            byte[] capsule = h.capsule(h.newSqe(0x01), new byte[512]);
            capsule[PduHeader.OFFSET_PDO] = 16;
            h.send(capsule);
            expectTermination(h, FatalErrorStatus.INVALID_HEADER_FIELD, PduHeader.OFFSET_PDO);
        }
    }

    @Test
    void h2cDataForAnUnknownTransferTagIsAnInvalidHeaderFieldAtTtag() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = RawTcpHost.initialized(f.address, false, false)) {
            h.send(h.h2cData(1, 77, 0, new byte[4096], 0, 4096, true));
            expectTermination(h, FatalErrorStatus.INVALID_HEADER_FIELD, DataPdu.OFFSET_TTAG);
        }
    }

    @Test
    void h2cDataOutsideItsR2tIsDataOutOfRange() throws Exception {
        try (TcpTargetFixture f = fixture();
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(false, false)) {
            var sqe = io.readWrite(0x01, 1, 0, 8);
            new TransportSglDescriptor(0, 4096).encode(sqe.dptr());
            io.send(io.capsule(sqe, null));
            MemorySegment r2t = io.readPdu(true);
            assertEquals(PduType.R2T.code(), PduHeader.type(r2t));
            assertEquals(4096, DataPdu.dataLength(r2t));
            // DATAO 2048 where 0 is due
            io.send(io.h2cData(sqe.cid(), DataPdu.transferTag(r2t), 2048, new byte[4096], 0, 2048, true));
            expectTermination(io, FatalErrorStatus.DATA_OUT_OF_RANGE, DataPdu.OFFSET_OFFSET);
        }
    }

    @Test
    void r2tNeverAnsweredEndsTheConnectionAfterTheCommandTimeout() throws Exception {
        try (TcpTargetFixture f = fixture();
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(false, false)) {
            var sqe = io.readWrite(0x01, 1, 0, 8);
            new TransportSglDescriptor(0, 4096).encode(sqe.dptr());
            io.send(io.capsule(sqe, null));
            assertEquals(PduType.R2T.code(), PduHeader.type(io.readPdu(true)));
            // no H2CData: the 2 s command timeout ends the connection (the read timeout is 10 s)
            assertTrue(io.closedByTarget());
        }
    }

    @Test
    void hostThatTakesNoResponsesIsClosedAfterTheCommandTimeout() throws Exception {
        try (TcpTargetFixture f = fixture();
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(false, false)) {
            io.socket.setReceiveBufferSize(4096);
            // 32 reads of 1 MiB and not a byte read back: far more than the socket buffers hold
            for (int i = 0; i < 32; i++) {
                var sqe = io.readWrite(0x02, 1, 0, 2048);
                new TransportSglDescriptor(0, 1 << 20).encode(sqe.dptr());
                io.send(io.capsule(sqe, null));
            }
            Await.until(() -> f.transport.queueCount() == 1, Duration.ofSeconds(10), "stalled queue closed");
        }
    }

    @Test
    void wrongHeaderDigestIsAHeaderDigestError() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = RawTcpHost.initialized(f.address, true, false)) {
            byte[] capsule = h.capsule(h.newSqe(0x18), null);
            capsule[72] ^= 1;
            h.send(capsule);
            expectTermination(h, FatalErrorStatus.HEADER_DIGEST_ERROR, 0);
        }
    }

    @Test
    void wrongDataDigestEndsTheConnectionAsNvmetDoes() throws Exception {
        try (TcpTargetFixture f = fixture();
             RawTcpHost h = RawTcpHost.initialized(f.address, false, true)) {
            var sqe = h.readWrite(0x01, 1, 0, 1);
            io.nvmf4j.protocol.sgl.DataBlockDescriptor.inCapsule(0, 512).encode(sqe.dptr());
            byte[] capsule = h.capsule(sqe, new byte[512]);
            capsule[capsule.length - 1] ^= 1;
            h.send(capsule);
            assertTrue(h.closedByTarget());
        }
    }

    @Test
    void hostileConnectionsHoldOnlyABoundedCountAndDoNotDisturbAConnectedHost() throws Exception {
        AtomicInteger refusedAtAccept = new AtomicInteger();
        TransportObserver counting = new TransportObserver() {
            @Override
            public void peerRejected(RejectReason reason) {
                if (reason == RejectReason.UNCONNECTED_LIMIT) {
                    refusedAtAccept.incrementAndGet();
                }
            }
        };
        // ICReq timeout far away: the held connections stay held while the flood goes on
        try (TcpTargetFixture f = new TcpTargetFixture(TcpTargetFixture.options().icReqTimeout(Duration.ofSeconds(60))
                .maxUnconnected(16).maxUnconnectedPerAddress(8).build(), counting);
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(false, false)) {
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    Socket s = new Socket();
                    s.connect(f.address, RawTcpHost.TIMEOUT_MILLIS);
                    flood.add(s);
                }
                // the 8 per address are held (until their ICReq timeout), the rest closed at accept
                Await.until(() -> refusedAtAccept.get() + f.transport.unconnectedCount() == 200,
                        Duration.ofSeconds(10), "every flood connection accepted or refused");
                assertEquals(8, f.transport.unconnectedCount());
                assertEquals(192, refusedAtAccept.get());
                byte[] data = TcpTransportTest.pattern(8192, 9);
                assertEquals(0, io.write(1, 16, TcpTargetFixture.BLOCK, data, false).status());
                assertArrayEquals(data, io.read(1, 16, 16, TcpTargetFixture.BLOCK).data());
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
            Await.until(() -> f.transport.unconnectedCount() == 0, Duration.ofSeconds(5), "flood released");
            try (RawTcpHost later = RawTcpHost.initialized(f.address, false, false)) {
                assertEquals(0, later.connect(0, 31, 0xFFFF, TcpTargetFixture.SUBNQN, TcpTargetFixture.HOST)
                        .status());
            }
        }
    }

    /** The next PDU is a C2HTermReq with {@code fes} and {@code fei}, and the target closes after it. */
    private static void expectTermination(RawTcpHost h, FatalErrorStatus fes, int fei) throws Exception {
        MemorySegment pdu = h.readPdu(false);
        assertEquals(PduType.C2H_TERM_REQ.code(), PduHeader.type(pdu), "a C2HTermReq");
        TermReq term = TermReq.decode(pdu);
        assertEquals(fes, term.status());
        assertEquals(fei, term.information());
        assertTrue(Wire.u32(pdu, PduHeader.OFFSET_PLEN) >= TermReq.HEADER_LENGTH);
        assertTrue(h.closedByTarget(), "closed after the C2HTermReq");
    }
}
