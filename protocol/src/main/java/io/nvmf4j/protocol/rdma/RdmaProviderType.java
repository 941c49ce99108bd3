package io.nvmf4j.protocol.rdma;

import java.util.Optional;

/** RDMA provider type of the TSAS (Linux {@code NVMF_RDMA_PRTYPE_*}, SPDK {@code spdk_nvmf_rdma_prtype}). */
public enum RdmaProviderType {
    NOT_SPECIFIED(0x1),
    INFINIBAND(0x2),
    ROCE(0x3),
    ROCE_V2(0x4),
    IWARP(0x5);

    private final int value;

    RdmaProviderType(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static Optional<RdmaProviderType> fromValue(int v) {
        for (RdmaProviderType t : values()) {
            if (t.value == v) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
