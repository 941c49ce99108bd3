package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.Wire;

/**
 * CAP, Controller Capabilities, property 0h, 8 bytes (NVMe Base 2.0, "Offset 0h: CAP - Controller Capabilities"; SPDK
 * {@code union spdk_nvme_cap_register}). Bits not named here (CPS, PMRS, CMBS, NSSS, CRMS) read as zero.
 *
 * @param mqes   Maximum Queue Entries Supported, 0's based (bits 15:0)
 * @param cqr    Contiguous Queues Required (bit 16; always set on a fabric)
 * @param ams    Arbitration Mechanism Supported (bits 18:17)
 * @param to     Timeout, in 500 ms units, for CSTS.RDY to follow CC.EN (bits 31:24)
 * @param dstrd  Doorbell Stride (bits 35:32; 0 on a fabric)
 * @param nssrs  NVM Subsystem Reset Supported (bit 36)
 * @param css    Command Sets Supported (bits 44:37; bit 0 = NVM command set)
 * @param bps    Boot Partition Support (bit 45)
 * @param mpsmin Memory Page Size Minimum, 2^(12+MPSMIN) (bits 51:48)
 * @param mpsmax Memory Page Size Maximum, 2^(12+MPSMAX) (bits 55:52)
 */
public record ControllerCapabilities(int mqes, boolean cqr, int ams, int to, int dstrd, boolean nssrs, int css,
                                     boolean bps, int mpsmin, int mpsmax) {

    /** CSS bit for the NVM command set. */
    public static final int CSS_NVM = 1;

    public ControllerCapabilities {
        Wire.checkUnsigned("CAP.MQES", mqes, 16);
        Wire.checkUnsigned("CAP.AMS", ams, 2);
        Wire.checkUnsigned("CAP.TO", to, 8);
        Wire.checkUnsigned("CAP.DSTRD", dstrd, 4);
        Wire.checkUnsigned("CAP.CSS", css, 8);
        Wire.checkUnsigned("CAP.MPSMIN", mpsmin, 4);
        Wire.checkUnsigned("CAP.MPSMAX", mpsmax, 4);
    }

    public static ControllerCapabilities fromRaw(long raw) {
        return new ControllerCapabilities((int) (raw & 0xFFFF), bit(raw, 16), (int) (raw >>> 17) & 0x3,
                (int) (raw >>> 24) & 0xFF, (int) (raw >>> 32) & 0xF, bit(raw, 36), (int) (raw >>> 37) & 0xFF,
                bit(raw, 45), (int) (raw >>> 48) & 0xF, (int) (raw >>> 52) & 0xF);
    }

    public long toRaw() {
        return (long) mqes | (cqr ? 1L << 16 : 0) | (long) ams << 17 | (long) to << 24 | (long) dstrd << 32
                | (nssrs ? 1L << 36 : 0) | (long) css << 37 | (bps ? 1L << 45 : 0) | (long) mpsmin << 48
                | (long) mpsmax << 52;
    }

    /** Largest queue the controller supports, in entries (MQES + 1). */
    public int maxQueueEntries() {
        return mqes + 1;
    }

    /** CAP.TO in milliseconds. */
    public long timeoutMillis() {
        return to * 500L;
    }

    private static boolean bit(long raw, int n) {
        return (raw >>> n & 1) != 0;
    }

    @Override
    public String toString() {
        return String.format("CAP[mqes=%d cqr=%b ams=%d to=%dms dstrd=%d nssrs=%b css=%02xh bps=%b mpsmin=%d mpsmax=%d]",
                mqes, cqr, ams, timeoutMillis(), dstrd, nssrs, css, bps, mpsmin, mpsmax);
    }
}
