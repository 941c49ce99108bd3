package io.nvmf4j.protocol.rdma;

import java.util.Optional;

/** RDMA QP service type of the TSAS (Linux {@code NVMF_RDMA_QPTYPE_*}, SPDK {@code spdk_nvmf_rdma_qptype}). */
public enum RdmaQpType {
    RELIABLE_CONNECTED(0x1),
    RELIABLE_DATAGRAM(0x2);

    private final int value;

    RdmaQpType(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static Optional<RdmaQpType> fromValue(int v) {
        for (RdmaQpType t : values()) {
            if (t.value == v) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
