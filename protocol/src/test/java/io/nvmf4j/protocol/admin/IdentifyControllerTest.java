package io.nvmf4j.protocol.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/**
 * Expected bytes are placed at the offsets of Linux {@code struct nvme_id_ctrl} / SPDK
 * {@code struct spdk_nvme_ctrlr_data} written out as literals, not through {@link IdentifyController}'s constants.
 */
class IdentifyControllerTest {

    private static final String SUBNQN = "nqn.2024-01.io.nvmf4j:ram0";

    /** What Linux nvmet's nvmet_execute_identify_ctrl() would put at these offsets for an RDMA port. */
    private static byte[] linuxStyleVector() {
        byte[] b = new byte[4096];
        Bytes.le(b, 0, 0x1B36, 2);            // vid
        Bytes.le(b, 2, 0x1AF4, 2);            // ssvid
        Bytes.fill(b, 4, 20, ' ');
        Bytes.ascii(b, 4, "4f1d2c3b");        // sn, space padded
        Bytes.fill(b, 24, 40, ' ');
        Bytes.ascii(b, 24, "nvmf4j ram");     // mn
        Bytes.fill(b, 64, 8, ' ');
        Bytes.ascii(b, 64, "0.1");            // fr
        b[72] = 6;                            // rab
        b[73] = 0x00; b[74] = 0x14; b[75] = (byte) 0xEE; // ieee OUI 0xEE1400, LSB first
        b[76] = 0x0B;                         // cmic
        b[77] = 8;                            // mdts
        Bytes.le(b, 78, 0x0102, 2);           // cntlid
        Bytes.le(b, 80, 0x0002_0000, 4);      // ver 2.0
        Bytes.le(b, 92, 0x8000_0100L, 4);     // oaes
        Bytes.le(b, 96, 0x0000_0001, 4);      // ctratt
        b[111] = 1;                           // cntrltype I/O
        Bytes.le(b, 256, 0x0000, 2);          // oacs
        b[258] = 3;                           // acl
        b[259] = 3;                           // aerl
        b[260] = 3;                           // frmw
        b[261] = 0x06;                        // lpa
        b[262] = 127;                         // elpe
        b[263] = 0;                           // npss
        Bytes.le(b, 266, 343, 2);             // wctemp
        Bytes.le(b, 268, 373, 2);             // cctemp
        b[280] = 0x00; b[281] = 0x10;         // tnvmcap = 4096 (LE u128)
        Bytes.le(b, 320, 100, 2);             // kas: 100 * 100 ms
        b[512] = 0x66;                        // sqes
        b[513] = 0x44;                        // cqes
        Bytes.le(b, 514, 128, 2);             // maxcmd
        Bytes.le(b, 516, 1024, 4);            // nn
        Bytes.le(b, 520, 0x000C, 2);          // oncs: dsm | write zeroes
        b[525] = 0x01;                        // vwc
        Bytes.le(b, 534, 0x0001, 2);          // ocfs
        Bytes.le(b, 536, 0x0010_0005L, 4);    // sgls: supported | keyed | offset
        Bytes.le(b, 540, 0, 4);               // mnan
        Bytes.ascii(b, 768, SUBNQN);          // subnqn, NUL padded
        Bytes.le(b, 1792, 260, 4);            // ioccsz: (4096 + 64) / 16
        Bytes.le(b, 1796, 1, 4);              // iorcsz
        Bytes.le(b, 1800, 0, 2);              // icdoff
        b[1802] = 0;                          // fcatt: dynamic model
        b[1803] = 1;                          // msdbd
        Bytes.le(b, 1804, 0x0001, 2);         // ofcs: disconnect
        Bytes.le(b, 2048, 2500, 2);           // psd[0].max_power (centiwatts)
        Bytes.le(b, 2048 + 4, 10, 4);         // psd[0].entry_lat
        Bytes.le(b, 2048 + 8, 20, 4);         // psd[0].exit_lat
        return b;
    }

    @Test
    void sizeIs4096Bytes() {
        assertEquals(4096, IdentifyController.SIZE);
        assertEquals(4096, IdentifyController.allocate().segment().byteSize());
        assertEquals(32, PowerStateDescriptor.SIZE);
    }

    @Test
    void encodingLikeNvmetGivesTheLinuxByteLayout() {
        IdentifyController id = IdentifyController.allocate()
                .vid(0x1B36).ssvid(0x1AF4).serialNumber("4f1d2c3b").modelNumber("nvmf4j ram").firmwareRevision("0.1")
                .rab(6).ieee(0xEE1400).cmic(0x0B).mdts(8).cntlid(0x0102).ver(0x0002_0000).oaes(0x8000_0100)
                .ctratt(1).cntrltype(1).acl(3).aerl(3).frmw(3).lpa(0x06).elpe(127).npss(0).wctemp(343).cctemp(373)
                .tnvmcap(BigInteger.valueOf(4096)).kas(100).sqes(0x66).cqes(0x44).maxcmd(128).nn(1024).oncs(0x0C)
                .vwc(1).ocfs(1).sgls(IdentifyController.SGLS_SUPPORTED | IdentifyController.SGLS_KEYED
                        | IdentifyController.SGLS_OFFSET)
                .subsystemNqn(Nqn.parse(SUBNQN)).ioccsz(260).iorcsz(1).icdoff(0).fcatt(0).msdbd(1).ofcs(1)
                .powerState(0, new PowerStateDescriptor(2500, 0, 10, 20, 0, 0, 0, 0, 0, 0, 0, 0));
        assertArrayEquals(linuxStyleVector(), id.segment().toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void decodingTheLinuxVectorReadsEveryField() {
        IdentifyController id = IdentifyController.wrap(MemorySegment.ofArray(linuxStyleVector())).validate();
        assertEquals(0x1B36, id.vid());
        assertEquals("4f1d2c3b", id.serialNumber());
        assertEquals("nvmf4j ram", id.modelNumber());
        assertEquals("0.1", id.firmwareRevision());
        assertEquals(0xEE1400, id.ieee());
        assertEquals(8, id.mdts());
        assertEquals(0x0102, id.cntlid());
        assertEquals(0x0002_0000, id.ver());
        assertEquals(127, id.elpe());
        assertEquals(100, id.kas());
        assertEquals(BigInteger.valueOf(4096), id.tnvmcap());
        assertEquals(128, id.maxcmd());
        assertEquals(1024, id.nn());
        assertEquals(0x0010_0005, id.sgls());
        assertEquals(Nqn.parse(SUBNQN), id.subsystemNqn());
        assertEquals(260, id.ioccsz());
        assertEquals(4096, id.inCapsuleDataSize());
        assertEquals(1, id.iorcsz());
        assertEquals(1, id.msdbd());
        assertEquals(1, id.ofcs());
        assertEquals(2500, id.powerState(0).maxPower());
        assertEquals(20, id.powerState(0).exitLatencyUs());
        assertTrue(id.toString().contains("ioccsz=260"), id.toString());
    }

    @Test
    void truncatedBufferIsAPreciseError() {
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> IdentifyController.wrap(MemorySegment.ofArray(new byte[4095])));
        assertTrue(e.getMessage().contains("4096") && e.getMessage().contains("4095"), e.getMessage());
    }

    @Test
    void validateRejectsNonPrintableSerialNumberAndTooManyPowerStates() {
        byte[] b = linuxStyleVector();
        b[10] = 0; // a NUL inside the space-padded SN
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> IdentifyController.wrap(MemorySegment.ofArray(b)).validate());
        assertTrue(e.getMessage().startsWith("SN byte 6"), e.getMessage());

        byte[] c = linuxStyleVector();
        c[263] = 32; // NPSS is 0's based: 33 states
        assertThrows(MalformedStructureException.class, () -> IdentifyController.wrap(MemorySegment.ofArray(c)).validate());

        byte[] d = linuxStyleVector();
        Bytes.le(d, 1792, 3, 4); // IOCCSZ below 4
        assertThrows(MalformedStructureException.class, () -> IdentifyController.wrap(MemorySegment.ofArray(d)).validate());
    }

    @Test
    void overlongOrNonAsciiTextIsRefusedOnEncode() {
        IdentifyController id = IdentifyController.allocate();
        assertThrows(IllegalArgumentException.class, () -> id.serialNumber("123456789012345678901"));
        assertThrows(IllegalArgumentException.class, () -> id.modelNumber("caf\u00e9"));
    }
}
