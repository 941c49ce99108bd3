package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.Wire;

/**
 * CC, Controller Configuration, property 14h, 4 bytes (NVMe Base 2.0, "Offset 14h: CC - Controller Configuration";
 * Linux {@code NVME_CC_*}, SPDK
 * {@code union spdk_nvme_cc_register}). Linux hosts enable a fabrics controller by writing 00460001h: EN, CSS
 * NVM, MPS 0 (4 KiB), AMS round robin, IOSQES 6 (64 B), IOCQES 4 (16 B).
 *
 * @param enable EN (bit 0)
 * @param css    I/O Command Set Selected (bits 6:4)
 * @param mps    Memory Page Size, 2^(12+MPS) (bits 10:7)
 * @param ams    Arbitration Mechanism Selected (bits 13:11)
 * @param shn    Shutdown Notification (bits 15:14): {@link #SHN_NONE}, {@link #SHN_NORMAL}, {@link #SHN_ABRUPT}
 * @param iosqes I/O Submission Queue Entry Size, 2^n bytes (bits 19:16)
 * @param iocqes I/O Completion Queue Entry Size, 2^n bytes (bits 23:20)
 */
public record ControllerConfiguration(boolean enable, int css, int mps, int ams, int shn, int iosqes, int iocqes) {

    public static final int SHN_NONE = 0;
    public static final int SHN_NORMAL = 1;
    public static final int SHN_ABRUPT = 2;

    public ControllerConfiguration {
        Wire.checkUnsigned("CC.CSS", css, 3);
        Wire.checkUnsigned("CC.MPS", mps, 4);
        Wire.checkUnsigned("CC.AMS", ams, 3);
        Wire.checkUnsigned("CC.SHN", shn, 2);
        Wire.checkUnsigned("CC.IOSQES", iosqes, 4);
        Wire.checkUnsigned("CC.IOCQES", iocqes, 4);
    }

    public static ControllerConfiguration fromRaw(int raw) {
        return new ControllerConfiguration((raw & 1) != 0, raw >>> 4 & 0x7, raw >>> 7 & 0xF, raw >>> 11 & 0x7,
                raw >>> 14 & 0x3, raw >>> 16 & 0xF, raw >>> 20 & 0xF);
    }

    public int toRaw() {
        return (enable ? 1 : 0) | css << 4 | mps << 7 | ams << 11 | shn << 14 | iosqes << 16 | iocqes << 20;
    }

    public ControllerConfiguration withEnable(boolean en) {
        return new ControllerConfiguration(en, css, mps, ams, shn, iosqes, iocqes);
    }

    public ControllerConfiguration withShutdown(int notification) {
        return new ControllerConfiguration(enable, css, mps, ams, notification, iosqes, iocqes);
    }

    @Override
    public String toString() {
        return String.format("CC[en=%b css=%d mps=%d ams=%d shn=%d iosqes=%d iocqes=%d]",
                enable, css, mps, ams, shn, iosqes, iocqes);
    }
}
