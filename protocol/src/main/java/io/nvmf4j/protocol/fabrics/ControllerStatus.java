package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.Wire;

/**
 * CSTS, Controller Status, property 1Ch, 4 bytes (NVMe Base 2.0, "Offset 1Ch: CSTS - Controller Status"; Linux
 * {@code NVME_CSTS_*}, SPDK
 * {@code union spdk_nvme_csts_register}).
 *
 * @param ready  RDY (bit 0)
 * @param fatal  CFS, Controller Fatal Status (bit 1)
 * @param shst   Shutdown Status (bits 3:2): {@link #SHST_NORMAL}, {@link #SHST_OCCURRING}, {@link #SHST_COMPLETE}
 * @param nssro  NVM Subsystem Reset Occurred (bit 4)
 * @param paused PP, Processing Paused (bit 5)
 */
public record ControllerStatus(boolean ready, boolean fatal, int shst, boolean nssro, boolean paused) {

    public static final int SHST_NORMAL = 0;
    public static final int SHST_OCCURRING = 1;
    public static final int SHST_COMPLETE = 2;

    public ControllerStatus {
        Wire.checkUnsigned("CSTS.SHST", shst, 2);
    }

    public static ControllerStatus fromRaw(int raw) {
        return new ControllerStatus((raw & 1) != 0, (raw & 2) != 0, raw >>> 2 & 0x3, (raw & 0x10) != 0,
                (raw & 0x20) != 0);
    }

    public int toRaw() {
        return (ready ? 1 : 0) | (fatal ? 2 : 0) | shst << 2 | (nssro ? 0x10 : 0) | (paused ? 0x20 : 0);
    }

    @Override
    public String toString() {
        return String.format("CSTS[rdy=%b cfs=%b shst=%d nssro=%b pp=%b]", ready, fatal, shst, nssro, paused);
    }
}
