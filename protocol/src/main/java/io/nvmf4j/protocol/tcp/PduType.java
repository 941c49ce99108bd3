package io.nvmf4j.protocol.tcp;

/**
 * PDU-Type, byte 0 of the common header, with the header length (HLEN) the specification fixes for each type and
 * who may send it (NVMe/TCP 1.0a, 3.6.2; Linux {@code enum nvme_tcp_pdu_type} and {@code nvmet_tcp_pdu_size()},
 * SPDK {@code enum spdk_nvme_tcp_pdu_type}). 08h is not assigned.
 */
public enum PduType {
    IC_REQ(0x00, 128, true),
    IC_RESP(0x01, 128, false),
    H2C_TERM_REQ(0x02, 24, true),
    C2H_TERM_REQ(0x03, 24, false),
    CAPSULE_CMD(0x04, 72, true),
    CAPSULE_RESP(0x05, 24, false),
    H2C_DATA(0x06, 24, true),
    C2H_DATA(0x07, 24, false),
    R2T(0x09, 24, false);

    private static final PduType[] BY_CODE = new PduType[10];

    static {
        for (PduType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final int headerLength;
    private final boolean fromHost;

    PduType(int code, int headerLength, boolean fromHost) {
        this.code = code;
        this.headerLength = headerLength;
        this.fromHost = fromHost;
    }

    /** The PDU-Type byte. */
    public int code() {
        return code;
    }

    /** HLEN: the only header length a PDU of this type may carry (without the header digest). */
    public int headerLength() {
        return headerLength;
    }

    /** Whether a host sends this type (else a controller does). */
    public boolean fromHost() {
        return fromHost;
    }

    /** The type of code {@code code}, or null for one the specification does not define. */
    public static PduType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
