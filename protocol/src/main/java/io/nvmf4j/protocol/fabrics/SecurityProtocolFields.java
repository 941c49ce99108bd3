package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;

/**
 * The security protocol fields that Authentication Send and Authentication Receive share at the same bytes (NVMe
 * Base 2.0, 6.1/6.2; Linux {@code struct nvmf_auth_send_command} and {@code struct nvmf_auth_receive_command}):
 * byte 41 SPSP0, 42 SPSP1, 43 SECP. Read in place (no allocation), for a controller that checks each field with its
 * own error location ({@code nvmet_execute_auth_send()} / {@code nvmet_execute_auth_receive()}).
 */
public final class SecurityProtocolFields {

    public static final int OFFSET_SPSP0 = 41;
    public static final int OFFSET_SPSP1 = 42;
    public static final int OFFSET_SECP = 43;

    private SecurityProtocolFields() {
    }

    /** SECP (byte 43). */
    public static int secpOf(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_SECP);
    }

    /** SPSP0 (byte 41). */
    public static int spsp0Of(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_SPSP0);
    }

    /** SPSP1 (byte 42). */
    public static int spsp1Of(SubmissionQueueEntry sqe) {
        return Wire.u8(sqe.segment(), OFFSET_SPSP1);
    }
}
