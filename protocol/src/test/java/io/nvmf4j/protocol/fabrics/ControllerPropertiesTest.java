package io.nvmf4j.protocol.fabrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Register layouts of NVMe Base 2.0 3.1.4 as SPDK's spdk_nvme_cap/cc/csts_register bitfields lay them out. */
class ControllerPropertiesTest {

    @Test
    void propertyOffsetsAreLinuxNvmeRegValues() {
        assertEquals(0x00, ControllerProperty.CAP.offset());
        assertEquals(0x08, ControllerProperty.VS.offset());
        assertEquals(0x14, ControllerProperty.CC.offset());
        assertEquals(0x1C, ControllerProperty.CSTS.offset());
        assertEquals(0x20, ControllerProperty.NSSR.offset());
        assertEquals(PropertySize.EIGHT_BYTES, ControllerProperty.CAP.size());
        assertEquals(PropertySize.FOUR_BYTES, ControllerProperty.CSTS.size());
        assertEquals(ControllerProperty.CC, ControllerProperty.at(0x14).orElseThrow());
        assertFalse(ControllerProperty.at(0x24).isPresent()); // AQA: PCIe only
    }

    @Test
    void capabilityBitsSitAtTheirSpecPositions() {
        // mqes 127, cqr, ams 1, to 15 (7.5 s), nssrs, css NVM (bit 37), bps (bit 45), mpsmin 0, mpsmax 4
        long raw = 0x0040_2030_0F03_007FL;
        ControllerCapabilities cap = ControllerCapabilities.fromRaw(raw);
        assertEquals(new ControllerCapabilities(127, true, 1, 15, 0, true, 1, true, 0, 4), cap);
        assertEquals(raw, cap.toRaw());
        assertEquals(128, cap.maxQueueEntries());
        assertEquals(7500, cap.timeoutMillis());
        assertEquals(1L << 32 | 0x7F, new ControllerCapabilities(127, false, 0, 0, 1, false, 0, false, 0, 0).toRaw());
        assertEquals(0xFL << 48, new ControllerCapabilities(0, false, 0, 0, 0, false, 0, false, 15, 0).toRaw());
    }

    @Test
    void linuxEnableValueDecodesToNvmFourKibPagesAndStandardEntrySizes() {
        ControllerConfiguration cc = ControllerConfiguration.fromRaw(0x0046_0001);
        assertTrue(cc.enable());
        assertEquals(6, cc.iosqes());
        assertEquals(4, cc.iocqes());
        assertEquals(0x0046_4001, cc.withShutdown(ControllerConfiguration.SHN_NORMAL).toRaw());
        assertEquals(0x0046_8001, cc.withShutdown(ControllerConfiguration.SHN_ABRUPT).toRaw());
        assertEquals(0x0046_0000, cc.withEnable(false).toRaw());
        assertEquals(7 << 4 | 15 << 7 | 7 << 11, new ControllerConfiguration(false, 7, 15, 7, 0, 0, 0).toRaw());
    }

    @Test
    void statusBitsMatchLinuxNvmeCstsConstants() {
        assertEquals(0x1, new ControllerStatus(true, false, 0, false, false).toRaw()); // NVME_CSTS_RDY
        assertEquals(0x2, new ControllerStatus(false, true, 0, false, false).toRaw()); // NVME_CSTS_CFS
        assertEquals(0x8, new ControllerStatus(false, false, ControllerStatus.SHST_COMPLETE, false, false).toRaw());
        assertEquals(0x4, new ControllerStatus(false, false, ControllerStatus.SHST_OCCURRING, false, false).toRaw());
        ControllerStatus csts = ControllerStatus.fromRaw(0x39);
        assertEquals(new ControllerStatus(true, false, 2, true, true), csts);
    }

    @Test
    void versionPacksMajorMinorTertiary() {
        assertEquals(0x0001_0300, NvmeVersion.V1_3.toRaw());
        assertEquals(new NvmeVersion(2, 0, 0), NvmeVersion.fromRaw(0x0002_0000));
        assertEquals("1.4", NvmeVersion.V1_4.toString());
        assertTrue(NvmeVersion.V1_3.compareTo(NvmeVersion.V2_0) < 0);
    }
}
