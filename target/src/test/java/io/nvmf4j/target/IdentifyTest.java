package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.target.backend.RamBackend;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Identify data checked at the byte offsets of NVMe Base 2.0 Figures 275/276 and NVMe-oF 1.1 Figure 34 (Linux
 * {@code struct nvme_id_ctrl} / {@code struct nvme_id_ns}), with the values nvmet reports.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class IdentifyTest {

    private final TargetFixture fx = new TargetFixture();
    private final LoopHost host = fx.host().connectAndEnable(SUBNQN);

    @AfterEach
    void close() {
        fx.close();
    }

    private Request identify(int cns, long nsid, MemorySegment data) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(sqe, cns, nsid);
        return host.submit(host.admin, sqe, data);
    }

    private static String ascii(MemorySegment d, int offset, int length) {
        return new String(d.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    @Test
    void identifyControllerFieldsAtTheirOffsets() {
        MemorySegment d = host.buffer(4096);
        d.fill((byte) 0x5A); // must be overwritten entirely
        Request r = identify(1, 0, d);
        assertEquals(0, r.cqe().statusField());
        assertEquals("NVMF4JSERIAL01      ", ascii(d, 4, 20), "SN, space padded");
        assertEquals(String.format("%-40s", "nvmf4j test"), ascii(d, 24, 40), "MN");
        assertEquals("0.1.0   ", ascii(d, 64, 8), "FR");
        assertEquals(6, Wire.u8(d, 72), "RAB");
        assertEquals(0xB, Wire.u8(d, 76), "CMIC multi-port, multi-controller, ANA reporting");
        assertEquals(8, Wire.u8(d, 77), "MDTS 2^8 * 4 KiB");
        assertEquals(host.cntlid, Wire.u16(d, 78), "CNTLID");
        assertEquals(0x0001_0300L, Wire.u32(d, 80), "VER");
        assertEquals(0x900L, Wire.u32(d, 92), "OAES namespace attribute and ANA change notices");
        assertEquals(0x41L, Wire.u32(d, 96), "CTRATT 128-bit host ID, TBKAS");
        assertEquals(1, Wire.u8(d, 111), "CNTRLTYPE I/O controller");
        assertEquals(0, Wire.u16(d, 256), "OACS");
        assertEquals(3, Wire.u8(d, 258), "ACL");
        assertEquals(3, Wire.u8(d, 259), "AERL: four outstanding");
        assertEquals(0x3, Wire.u8(d, 260), "FRMW");
        assertEquals(0x7, Wire.u8(d, 261), "LPA: SMART per namespace, commands supported and effects, extended data");
        assertEquals(127, Wire.u8(d, 262), "ELPE");
        assertEquals(10, Wire.u16(d, 320), "KAS 100 ms units");
        assertEquals(0x66, Wire.u8(d, 512), "SQES");
        assertEquals(0x44, Wire.u8(d, 513), "CQES");
        assertEquals(128, Wire.u16(d, 514), "MAXCMD");
        assertEquals(1024L, Wire.u32(d, 516), "NN");
        assertEquals(0x2C, Wire.u16(d, 520), "ONCS DSM | Write Zeroes | Reservations");
        assertEquals(1, Wire.u8(d, 525), "VWC present");
        assertEquals(0x0010_0005L, Wire.u32(d, 536), "SGLS: supported, keyed, offsets");
        assertEquals(1024L, Wire.u32(d, 540), "MNAN");
        assertEquals(SUBNQN, ascii(d, 768, SUBNQN.length()));
        assertEquals(0, Wire.u8(d, 768 + SUBNQN.length()), "SUBNQN NUL-terminated");
        assertEquals((64 + 4096) / 16, Wire.u32(d, 1792), "IOCCSZ: SQE + 4 KiB in-capsule data");
        assertEquals(1L, Wire.u32(d, 1796), "IORCSZ: the CQE");
        assertEquals(0, Wire.u16(d, 1800), "ICDOFF");
        assertEquals(0, Wire.u8(d, 1802), "FCATT dynamic controller model");
        assertEquals(1, Wire.u8(d, 1803), "MSDBD");
        assertEquals(0x9C4, Wire.u16(d, 2048), "PSD0 MP");
        assertEquals(0x10L, Wire.u32(d, 2052), "PSD0 ENLAT");
        assertEquals(0x4L, Wire.u32(d, 2056), "PSD0 EXLAT");
        assertEquals(-1, d.asSlice(3072, 1024).mismatch(MemorySegment.ofArray(new byte[1024])), "vendor area zero");
        assertEquals(io.nvmf4j.target.DataDirection.CONTROLLER_TO_HOST, r.dataDirection());
        assertEquals(4096, r.expectedDataLength());
    }

    @Test
    void inCapsuleDataSizeShapesIoccszAndSgls() {
        TargetFixture noInline = new TargetFixture();
        try {
            Port p = Port.rdma(2, "127.0.0.1", "4421").inlineDataSize(0).mdts(5).maxQueueSize(64).build();
            noInline.target.addPort(p);
            p.addSubsystem(noInline.subsystem);
            LoopHost h = new LoopHost(noInline.target, p, TargetFixture.HOST).connectAndEnable(SUBNQN);
            MemorySegment d = h.buffer(4096);
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            IdentifyCommand.create(sqe, 1, 0);
            h.submit(h.admin, sqe, d);
            assertEquals(4L, Wire.u32(d, 1792), "IOCCSZ: the SQE alone");
            assertEquals(0x5L, Wire.u32(d, 536), "no SGL offset support without in-capsule data");
            assertEquals(5, Wire.u8(d, 77), "MDTS");
            assertEquals(64, Wire.u16(d, 514), "MAXCMD");
            assertEquals(63L, h.getProperty(0, true) & 0xFFFF, "CAP.MQES");
        } finally {
            noInline.close();
        }
    }

    @Test
    void aTcpPortOffersNoKeyedSglsButInCapsuleOffsets() {
        TargetFixture tcp = new TargetFixture();
        try {
            Port p = Port.tcp(2, "127.0.0.1", "4421").build();
            tcp.target.addPort(p);
            p.addSubsystem(tcp.subsystem);
            LoopHost h = new LoopHost(tcp.target, p, TargetFixture.HOST).connectAndEnable(SUBNQN);
            MemorySegment d = h.buffer(4096);
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            IdentifyCommand.create(sqe, 1, 0);
            h.submit(h.admin, sqe, d);
            assertEquals(0x100001L, Wire.u32(d, 536), "SGLS as nvmet-tcp: supported, offsets, no keyed SGL");
            assertEquals(1028L, Wire.u32(d, 1792), "IOCCSZ: the SQE and 16 KiB of in-capsule data");
        } finally {
            tcp.close();
        }
    }

    @Test
    void identifyNamespaceReportsSizeFormatAndIdentifiers() {
        MemorySegment d = host.buffer(4096);
        assertEquals(0, identify(0, 1, d).cqe().statusField());
        long blocks = (1 << 20) / 512;
        assertEquals(blocks, Wire.u64(d, 0), "NSZE");
        assertEquals(blocks, Wire.u64(d, 8), "NCAP");
        assertEquals(blocks, Wire.u64(d, 16), "NUSE");
        assertEquals(0, Wire.u8(d, 25), "NLBAF: one format");
        assertEquals(0, Wire.u8(d, 26), "FLBAS");
        assertEquals(1, Wire.u8(d, 30), "NMIC shared");
        assertEquals(1, Wire.u8(d, 33), "DLFEAT deallocated blocks read zeroes");
        assertEquals("0123456789abcdef0011223344556677",
                HexFormat.of().formatHex(d.asSlice(104, 16).toArray(ValueLayout.JAVA_BYTE)), "NGUID");
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, d.asSlice(120, 8).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0, Wire.u16(d, 128), "LBAF0 MS");
        assertEquals(9, Wire.u8(d, 130), "LBAF0 LBADS 512 bytes");

        fx.subsystem.addNamespace(SubsystemNamespace.of(7, RamBackend.allocate(1 << 20, 4096)));
        assertEquals(0, identify(0, 7, d).cqe().statusField());
        assertEquals(256, Wire.u64(d, 0));
        assertEquals(12, Wire.u8(d, 130), "LBAF0 LBADS 4096 bytes");
    }

    @Test
    void inactiveNamespaceIdentifiesAsZeroesAndBroadcastIsInvalid() {
        MemorySegment d = host.buffer(4096);
        d.fill((byte) 1);
        assertEquals(0, identify(0, 9, d).cqe().statusField());
        assertEquals(-1, d.mismatch(MemorySegment.ofArray(new byte[4096])), "all zero");
        Request all = identify(0, 0xFFFF_FFFFL, d);
        assertEquals(0x600B, all.cqe().statusField(), "INVALID_NS | DNR | More");
    }

    @Test
    void activeNamespaceListIsAscendingAndStartsAfterTheGivenId() {
        fx.subsystem.addNamespace(SubsystemNamespace.of(5, RamBackend.allocate(1 << 16, 512)));
        fx.subsystem.addNamespace(SubsystemNamespace.of(3, RamBackend.allocate(1 << 16, 512)));
        fx.subsystem.addNamespace(SubsystemNamespace.of(4, RamBackend.allocate(1 << 16, 512)));
        fx.subsystem.enableNamespace(4, false);
        MemorySegment d = host.buffer(4096);
        assertEquals(0, identify(2, 0, d).cqe().statusField());
        assertEquals(1L, Wire.u32(d, 0));
        assertEquals(3L, Wire.u32(d, 4));
        assertEquals(5L, Wire.u32(d, 8), "disabled namespace 4 is not active");
        assertEquals(0L, Wire.u32(d, 12));
        assertEquals(0, identify(2, 3, d).cqe().statusField());
        assertEquals(5L, Wire.u32(d, 0));
        assertEquals(0L, Wire.u32(d, 4));
        assertEquals(0x600B, identify(2, 0xFFFF_FFFEL, d).cqe().statusField());
    }

    @Test
    void namespaceDescriptorListCarriesEui64NguidUuidAndCsi() {
        MemorySegment d = host.buffer(4096);
        assertEquals(0, identify(3, 1, d).cqe().statusField());
        // NIDT 1 EUI-64, NIDL 8
        assertEquals(1, Wire.u8(d, 0));
        assertEquals(8, Wire.u8(d, 1));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, d.asSlice(4, 8).toArray(ValueLayout.JAVA_BYTE));
        // NIDT 2 NGUID, NIDL 16, at 12
        assertEquals(2, Wire.u8(d, 12));
        assertEquals(16, Wire.u8(d, 13));
        assertEquals(0x01, Wire.u8(d, 16));
        // NIDT 3 UUID, NIDL 16, at 32: big-endian RFC 4122 bytes
        assertEquals(3, Wire.u8(d, 32));
        assertEquals(16, Wire.u8(d, 33));
        assertEquals("6c9d8f0e1a2b4c3d8e9f0a1b2c3d4e5f",
                HexFormat.of().formatHex(d.asSlice(36, 16).toArray(ValueLayout.JAVA_BYTE)));
        // NIDT 4 CSI, NIDL 1, value 0 (NVM)
        assertEquals(4, Wire.u8(d, 52));
        assertEquals(1, Wire.u8(d, 53));
        assertEquals(0, Wire.u8(d, 56));
        assertTrue(Wire.isZero(d, 57, 4096 - 57), "terminated by zeroes");

        assertEquals(0x600B, identify(3, 9, d).cqe().statusField(), "unknown namespace");
    }

    @Test
    void nvmCommandSetSpecificIdentifyControllerIsZeroesOtherSetsAreInvalid() {
        MemorySegment d = host.buffer(4096);
        d.fill((byte) 9);
        assertEquals(0, identify(6, 0, d).cqe().statusField());
        assertTrue(Wire.isZero(d, 0, 4096));
        SubmissionQueueEntry zns = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(zns, 6, 0).csi(2);
        assertEquals(0x6002, host.submit(host.admin, zns, d).cqe().statusField(), "CSI 2 (zoned) not supported");
    }

    @Test
    void unknownCnsIsInvalidFieldAndAShortBufferIsAnSglLengthError() {
        Request r = identify(0x10, 0, host.buffer(4096));
        assertEquals(0x6002, r.cqe().statusField());
        Request shortBuffer = identify(1, 0, host.buffer(1024));
        assertEquals(0x600F, shortBuffer.cqe().statusField(), "SGL_INVALID_DATA | DNR | More");
    }
}
