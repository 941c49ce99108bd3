package io.nvmf4j.protocol.admin;

/**
 * One LBA Format descriptor of Identify Namespace (NVMe Base 2.0 / NVM Command Set 1.0, Figure 116): MS (metadata
 * size, u16 bytes 1:0), LBADS (byte 2, LBA data size as a power of two, at least 9 = 512 bytes) and RP (byte 3
 * bits 1:0, relative performance). Linux: {@code struct nvme_lbaf}; SPDK: {@code struct spdk_nvme_ns_data_lbaf}.
 */
public record LbaFormat(int metadataSize, int lbaDataSizeShift, int relativePerformance) {

    public static final int SIZE = 4;
    /** 2^9 = 512 bytes: "a value smaller than 9 is not supported". */
    public static final int MIN_LBADS = 9;

    public LbaFormat {
        if (metadataSize < 0 || metadataSize > 0xFFFF) {
            throw new IllegalArgumentException("MS " + metadataSize + " outside 0..65535");
        }
        if (lbaDataSizeShift < 0 || lbaDataSizeShift > 0xFF) {
            throw new IllegalArgumentException("LBADS " + lbaDataSizeShift + " outside 0..255");
        }
        if (relativePerformance < 0 || relativePerformance > 3) {
            throw new IllegalArgumentException("RP " + relativePerformance + " outside 0..3");
        }
    }

    /** A format with {@code blockSize}-byte LBAs (a power of two, 512 or more) and no metadata. */
    public static LbaFormat ofBlockSize(int blockSize) {
        if (blockSize < 512 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size " + blockSize + " is not a power of two >= 512");
        }
        return new LbaFormat(0, Integer.numberOfTrailingZeros(blockSize), 0);
    }

    /** LBA data size in bytes; only meaningful for a format with LBADS in 9..31 (check {@link #isUsable()}). */
    public long lbaDataSize() {
        return 1L << lbaDataSizeShift;
    }

    /** LBADS 0 marks an unused format slot; 1..8 and above 31 cannot be used for I/O here. */
    public boolean isUsable() {
        return lbaDataSizeShift >= MIN_LBADS && lbaDataSizeShift <= 31;
    }

    @Override
    public String toString() {
        return "LbaFormat[" + (isUsable() ? lbaDataSize() + "B" : "lbads=" + lbaDataSizeShift)
                + " ms=" + metadataSize + " rp=" + relativePerformance + "]";
    }
}
