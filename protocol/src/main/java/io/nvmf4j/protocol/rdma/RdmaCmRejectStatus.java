package io.nvmf4j.protocol.rdma;

import java.util.Optional;

/**
 * The STS of an RDMA_CM reject (NVMe RDMA Transport Specification, "RDMA_CM_REJECT Private Data"; Linux {@code
 * enum nvme_rdma_cm_status}, with
 * the messages of {@code nvme_rdma_cm_msg()}; SPDK {@code enum spdk_nvmf_rdma_transport_error}).
 */
public enum RdmaCmRejectStatus {
    INVALID_LEN(0x01, "invalid length"),
    INVALID_RECFMT(0x02, "invalid record format"),
    INVALID_QID(0x03, "invalid queue ID"),
    INVALID_HSQSIZE(0x04, "invalid host SQ size"),
    INVALID_HRQSIZE(0x05, "invalid host RQ size"),
    NO_RSC(0x06, "resource not found"),
    INVALID_IRD(0x07, "invalid IRD"),
    INVALID_ORD(0x08, "invalid ORD");

    private final int value;
    private final String message;

    RdmaCmRejectStatus(int value, String message) {
        this.value = value;
        this.message = message;
    }

    public int value() {
        return value;
    }

    /** What the Linux host logs for this status. */
    public String message() {
        return message;
    }

    public static Optional<RdmaCmRejectStatus> fromValue(int sts) {
        for (RdmaCmRejectStatus s : values()) {
            if (s.value == sts) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
