package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The layout Authentication Send and Authentication Receive share (NVMe Base 2.0, 6.1/6.2; Linux {@code struct
 * nvmf_auth_common_command}, of which {@code nvmf_auth_send_command} and {@code nvmf_auth_receive_command} are the
 * same bytes): SGL1 at 39:24, byte 41 SPSP0, 42 SPSP1, 43 SECP, bytes 47:44 the length (Linux {@code al_tl}: TL,
 * the bytes sent, in Send; AL, the bytes the host has room for, in Receive). Written and checked once here for both
 * records; read in place (no allocation) for a controller that checks each field with its own error location
 * ({@code nvmet_execute_auth_send()} / {@code nvmet_execute_auth_receive()}).
 */
public final class SecurityProtocolFields {

    public static final int OFFSET_SPSP0 = 41;
    public static final int OFFSET_SPSP1 = 42;
    public static final int OFFSET_SECP = 43;
    /** TL in Authentication Send, AL in Authentication Receive (Linux {@code al_tl}). */
    public static final int OFFSET_AL_TL = 44;

    private SecurityProtocolFields() {
    }

    /** Checks a record's fields: SECP, SPSP0, SPSP1 one byte each, {@code lengthName} (TL or AL) four bytes. */
    static void check(CommandId cid, SglDescriptor sgl1, int secp, int spsp0, int spsp1, String lengthName,
            long length) {
        Objects.requireNonNull(cid, "cid");
        Objects.requireNonNull(sgl1, "sgl1");
        Wire.checkUnsigned("SECP", secp, 8);
        Wire.checkUnsigned("SPSP0", spsp0, 8);
        Wire.checkUnsigned("SPSP1", spsp1, 8);
        Wire.checkUnsigned(lengthName, length, 32);
    }

    /** Writes the whole command: the fabrics header of {@code type}, SGL1 and the fields above. */
    static void encode(SubmissionQueueEntry sqe, FabricsCommandType type, CommandId cid, SglDescriptor sgl1,
            int secp, int spsp0, int spsp1, long length) {
        FabricsCommand.encodeHeader(sqe, type, cid);
        MemorySegment s = sqe.segment();
        sgl1.encode(sqe.dptr());
        Wire.u8(s, OFFSET_SPSP0, spsp0);
        Wire.u8(s, OFFSET_SPSP1, spsp1);
        Wire.u8(s, OFFSET_SECP, secp);
        Wire.u32(s, OFFSET_AL_TL, length);
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

    /** TL or AL (bytes 47:44), bytes. */
    public static long alTlOf(SubmissionQueueEntry sqe) {
        return Wire.u32(sqe.segment(), OFFSET_AL_TL);
    }
}
