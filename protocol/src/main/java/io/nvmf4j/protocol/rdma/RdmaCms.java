package io.nvmf4j.protocol.rdma;

import java.util.Optional;

/** RDMA connection management service of the TSAS (Linux {@code NVMF_RDMA_CMS_RDMA_CM}). */
public enum RdmaCms {
    /** Sockets-based endpoint addressing through the RDMA connection manager. */
    RDMA_CM(0x1);

    private final int value;

    RdmaCms(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static Optional<RdmaCms> fromValue(int v) {
        for (RdmaCms c : values()) {
            if (c.value == v) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
