package io.nvmf4j.target.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import io.nvmf4j.target.Port;
import io.nvmf4j.testsupport.Await;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a Linux host does over {@code nvme connect -t tcp}, against a real {@link TcpTransport} on 127.0.0.1: ICReq
 * and ICResp, Connect of the admin and an I/O queue, Identify, Reads over C2HData, Writes in the capsule and through
 * R2T and several H2CData PDUs, with and without digests; the discovery log entry of a TCP port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpTransportTest {

    @Test
    void icReqIsAnsweredWithTheDigestsAskedForCpdaZeroAndNvmetsMaxH2cData() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture();
             RawTcpHost h = new RawTcpHost(f.address)) {
            IcResp resp = h.icReq(IcReq.of(true, false));
            assertEquals(0, resp.pfv());
            assertEquals(0, resp.cpda());
            assertTrue(resp.headerDigest());
            assertFalse(resp.dataDigest());
            assertEquals(TcpTransportOptions.DEFAULT_MAX_H2C_DATA, resp.maxH2cData());
        }
    }

    @ParameterizedTest(name = "header digest {0}, data digest {1}")
    @CsvSource({"false, false", "true, false", "false, true", "true, true"})
    void hostConnectsIdentifiesWritesAndReadsBack(boolean headerDigest, boolean dataDigest) throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture();
             RawTcpHost admin = f.adminHost(headerDigest, dataDigest);
             RawTcpHost io = f.ioHost(headerDigest, dataDigest)) {
            RawTcpHost.Response id = admin.identify(1, 0);
            assertEquals(0, id.status());
            assertEquals(4096, id.data().length);
            String model = new String(id.data(), 24, 40, java.nio.charset.StandardCharsets.US_ASCII).trim();
            assertEquals("nvmf4j tcp test", model);
            // IOCCSZ (Identify Controller bytes 1792..1795) advertises the port's 16 KiB in-capsule data
            assertEquals((64 + Port.DEFAULT_TCP_INLINE_DATA_SIZE) / 16,
                    Wire.u32(MemorySegment.ofArray(id.data()), 1792));

            byte[] small = pattern(4096, 1);
            assertEquals(0, io.write(1, 8, TcpTargetFixture.BLOCK, small, true).status());
            assertEquals(0, io.r2ts, "in-capsule data needs no R2T");
            RawTcpHost.Response back = io.read(1, 8, 8, TcpTargetFixture.BLOCK);
            assertEquals(0, back.status());
            assertArrayEquals(small, back.data());
            assertEquals(1, io.c2hPdus);

            byte[] big = pattern(64 * 1024, 2);
            assertEquals(0, io.write(1, 64, TcpTargetFixture.BLOCK, big, false).status());
            assertEquals(1, io.r2ts);
            assertEquals(16, io.h2cPdus, "64 KiB in 4 KiB H2CData PDUs");
            RawTcpHost.Response bigBack = io.read(1, 64, 128, TcpTargetFixture.BLOCK);
            assertEquals(0, bigBack.status());
            assertArrayEquals(big, bigBack.data());
        }
    }

    @ParameterizedTest(name = "header digest {0}, data digest {0}")
    @CsvSource({"false", "true"})
    void withSqFlowControlOffAReadEndsWithItsC2hDataCarryingSuccess(boolean digests) throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture();
             var _ = f.adminHost(digests, digests);
             RawTcpHost io = f.ioHost(digests, digests, 0x04, 1);
             RawTcpHost plain = f.ioHost(digests, digests, 0, 2)) {
            byte[] data = pattern(8192, 5);
            assertEquals(0, io.write(1, 16, TcpTargetFixture.BLOCK, data, true).status());
            for (int i = 0; i < 3; i++) {
                RawTcpHost.Response back = io.read(1, 16, 16, TcpTargetFixture.BLOCK);
                assertEquals(0, back.status());
                assertArrayEquals(data, back.data());
                assertEquals(1, io.c2hPdus);
            }
            assertEquals(3, io.successFlags, "nvmet_setup_c2h_data_pdu(): LAST_PDU | SUCCESS, no CapsuleResp");
            // the next command's CapsuleResp is its own (RawTcpHost checks the CID): none was left over
            assertEquals(0, io.write(1, 32, TcpTargetFixture.BLOCK, data, true).status());
            RawTcpHost.Response withFlowControl = plain.read(1, 16, 16, TcpTargetFixture.BLOCK);
            assertArrayEquals(data, withFlowControl.data());
            assertEquals(0, plain.successFlags, "a queue with SQ flow control gets its CapsuleResp");
        }
    }

    @Test
    void writeOfOneMebibyteThroughR2tIsReadBackWhole() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture();
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(false, false)) {
            io.h2cChunk = 128 * 1024;
            byte[] data = pattern(1 << 20, 3);
            assertEquals(0, io.write(1, 0, TcpTargetFixture.BLOCK, data, false).status());
            assertEquals(8, io.h2cPdus);
            RawTcpHost.Response back = io.read(1, 0, data.length / TcpTargetFixture.BLOCK, TcpTargetFixture.BLOCK);
            assertArrayEquals(data, back.data());
        }
    }

    @Test
    void fileNamespaceCompletesThroughThePollGroupsBackendIo() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture();
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(false, true)) {
            byte[] data = pattern(32 * 1024, 4);
            assertEquals(0, io.write(2, 4, TcpTargetFixture.FILE_BLOCK, data, false).status());
            byte[] inCapsule = pattern(8192, 5);
            assertEquals(0, io.write(2, 12, TcpTargetFixture.FILE_BLOCK, inCapsule, true).status());
            assertArrayEquals(data, io.read(2, 4, 8, TcpTargetFixture.FILE_BLOCK).data());
            assertArrayEquals(inCapsule, io.read(2, 12, 2, TcpTargetFixture.FILE_BLOCK).data());
            assertEquals(0, io.execute(io.newSqe(0x00).nsid(2), null, null).status(), "flush");
        }
    }

    @Test
    void aKeyedSglIsRefusedWithSglDescriptorTypeInvalidAndTheQueueGoesOn() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture();
             var _ = f.adminHost(false, false);
             RawTcpHost io = f.ioHost(false, false)) {
            var sqe = io.readWrite(0x02, 1, 0, 8);
            new KeyedSglDescriptor(0x1000, 4096, 7, false).encode(sqe.dptr());
            RawTcpHost.Response refused = io.execute(sqe, null, null);
            assertEquals(StatusCode.SGL_INVALID_TYPE.status().toField() & 0x7FF,
                    refused.status() & 0x7FF);
            assertEquals(0, io.read(1, 0, 8, TcpTargetFixture.BLOCK).status());
        }
    }

    @Test
    void disconnectedHostsLeaveNoQueueBehind() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture()) {
            try (var _ = f.adminHost(false, false);
                 var _ = f.ioHost(false, false)) {
                Await.until(() -> f.transport.queueCount() == 2, Duration.ofSeconds(5), "two queues");
            }
            Await.until(() -> f.transport.queueCount() == 0, Duration.ofSeconds(5), "queues gone after close");
            Await.until(() -> f.subsystem.controllers().isEmpty(), Duration.ofSeconds(5), "controller freed");
        }
    }

    @Test
    void discoveryLogListsTheTcpPortWithTrtypeTcpAndSectypeNone() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture();
             RawTcpHost h = RawTcpHost.initialized(f.address, false, false)) {
            assertEquals(0, h.connect(0, 31, 0xFFFF, "nqn.2014-08.org.nvmexpress.discovery",
                    TcpTargetFixture.HOST).status());
            assertEquals(0, h.propertySet(0x14, 0x00460001L).status());
            var sqe = h.newSqe(0x02).nsid(0).cdw(10, 0x70 | ((4096 / 4 - 1) << 16));
            new io.nvmf4j.protocol.sgl.TransportSglDescriptor(0, 4096).encode(sqe.dptr());
            RawTcpHost.Response log = h.execute(sqe, null, null);
            assertEquals(0, log.status());
            DiscoveryLogPage page = DiscoveryLogPage.wrap(MemorySegment.ofArray(log.data()));
            assertEquals(2L, page.numrec());
            DiscoveryLogEntry nvm = page.entry(1);
            assertEquals(DiscoveryLogEntry.TRTYPE_TCP, nvm.trtype());
            assertEquals(TcpTargetFixture.SUBNQN, nvm.subnqn());
            assertEquals(f.port.trsvcid(), nvm.trsvcid());
            assertEquals(0, nvm.tsas().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0), "SECTYPE none");
        }
    }

    @Test
    void eachTransportRefusesThePortOfTheOther() throws Exception {
        try (TcpTargetFixture f = new TcpTargetFixture()) {
            Port rdma = Port.rdma(7, "127.0.0.1", "0").build();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.transport.listen(rdma));
            assertTrue(e.getMessage().contains("not a TCP port"), e.getMessage());
        }
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }
}
