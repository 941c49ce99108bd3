package io.nvmf4j.protocol.fabrics;

import java.util.Optional;

/**
 * The Fabrics Command Type (FCTYPE, SQE byte 4) of a fabrics command, opcode 7Fh (NVMe-oF 1.1, "Fabrics Command Type";
 * NVMe Base 2.0, "Fabrics Command Set"). Linux: {@code enum nvmf_fabrics_opcode} ({@code nvme_fabrics_type_*}); SPDK:
 * {@code enum spdk_nvmf_fabric_cmd_types}.
 */
public enum FabricsCommandType {
    PROPERTY_SET(0x00, "Property Set"),
    CONNECT(0x01, "Connect"),
    PROPERTY_GET(0x04, "Property Get"),
    AUTH_SEND(0x05, "Authentication Send"),
    AUTH_RECEIVE(0x06, "Authentication Receive"),
    DISCONNECT(0x08, "Disconnect");

    /** Opcode of every fabrics command (Linux {@code nvme_fabrics_command}). */
    public static final int OPCODE = 0x7F;

    private final int value;
    private final String title;

    FabricsCommandType(int value, String title) {
        this.value = value;
        this.title = title;
    }

    public int value() {
        return value;
    }

    public String title() {
        return title;
    }

    public static Optional<FabricsCommandType> fromValue(int fctype) {
        for (FabricsCommandType t : values()) {
            if (t.value == fctype) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
