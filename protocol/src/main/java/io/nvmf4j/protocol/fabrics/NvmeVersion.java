package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.Wire;

/**
 * VS, Version, property 8h, 4 bytes (NVMe Base 2.0, "Offset 8h: VS - Version"): major in bits 31:16, minor 15:8,
 * tertiary 7:0.
 * Linux {@code NVME_VS(major, minor, tertiary)}; e.g. 1.3 is 00010300h.
 */
public record NvmeVersion(int major, int minor, int tertiary) implements Comparable<NvmeVersion> {

    public static final NvmeVersion V1_3 = new NvmeVersion(1, 3, 0);
    public static final NvmeVersion V1_4 = new NvmeVersion(1, 4, 0);
    public static final NvmeVersion V2_0 = new NvmeVersion(2, 0, 0);

    public NvmeVersion {
        Wire.checkUnsigned("VS.MJR", major, 16);
        Wire.checkUnsigned("VS.MNR", minor, 8);
        Wire.checkUnsigned("VS.TER", tertiary, 8);
    }

    public static NvmeVersion fromRaw(int raw) {
        return new NvmeVersion(raw >>> 16, raw >>> 8 & 0xFF, raw & 0xFF);
    }

    public int toRaw() {
        return major << 16 | minor << 8 | tertiary;
    }

    @Override
    public int compareTo(NvmeVersion o) {
        return Integer.compareUnsigned(toRaw(), o.toRaw());
    }

    @Override
    public String toString() {
        return major + "." + minor + (tertiary != 0 ? "." + tertiary : "");
    }
}
