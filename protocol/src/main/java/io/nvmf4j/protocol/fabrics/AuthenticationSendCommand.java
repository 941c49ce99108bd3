package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * Authentication Send (FCTYPE 05h; NVMe Base 2.0, 6.2 "Authentication Send command"; Linux {@code struct
 * nvmf_auth_send_command}): carries one authentication message, host to controller, of TL bytes.
 *
 * <pre>
 *  0 opcode 7Fh | 2..3 CID | 4 FCTYPE 05h | 24..39 SGL1 (the TL bytes of data)
 *  40 reserved (NSSF) | 41 SPSP0 | 42 SPSP1 | 43 SECP | 44..47 TL | 48..63 reserved
 * </pre>
 *
 * For DH-HMAC-CHAP: SECP E9h, SPSP0 01h, SPSP1 01h ({@link io.nvmf4j.protocol.auth.AuthMessage}).
 */
public record AuthenticationSendCommand(CommandId cid, SglDescriptor sgl1, int secp, int spsp0, int spsp1, long tl)
        implements FabricsCommand {

    public static final int OFFSET_SPSP0 = SecurityProtocolFields.OFFSET_SPSP0;
    public static final int OFFSET_SPSP1 = SecurityProtocolFields.OFFSET_SPSP1;
    public static final int OFFSET_SECP = SecurityProtocolFields.OFFSET_SECP;
    public static final int OFFSET_TL = 44;

    public AuthenticationSendCommand {
        java.util.Objects.requireNonNull(cid, "cid");
        java.util.Objects.requireNonNull(sgl1, "sgl1");
        Wire.checkUnsigned("SECP", secp, 8);
        Wire.checkUnsigned("SPSP0", spsp0, 8);
        Wire.checkUnsigned("SPSP1", spsp1, 8);
        Wire.checkUnsigned("TL", tl, 32);
    }

    /** A DH-HMAC-CHAP message of {@code length} bytes (SECP E9h, SPSP0/1 01h as Linux sends). */
    public static AuthenticationSendCommand dhchap(CommandId cid, SglDescriptor sgl1, int length) {
        return new AuthenticationSendCommand(cid, sgl1, 0xE9, 0x01, 0x01, length);
    }

    @Override
    public FabricsCommandType fctype() {
        return FabricsCommandType.AUTH_SEND;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        FabricsCommand.encodeHeader(sqe, FabricsCommandType.AUTH_SEND, cid);
        MemorySegment s = sqe.segment();
        sgl1.encode(sqe.dptr());
        Wire.u8(s, OFFSET_SPSP0, spsp0);
        Wire.u8(s, OFFSET_SPSP1, spsp1);
        Wire.u8(s, OFFSET_SECP, secp);
        Wire.u32(s, OFFSET_TL, tl);
    }

    // A field read in place (no allocation); SECP, SPSP0 and SPSP1 are read by SecurityProtocolFields.

    /** TL (bytes 47:44), bytes. */
    public static long tlOf(SubmissionQueueEntry sqe) {
        return Wire.u32(sqe.segment(), OFFSET_TL);
    }

    public static AuthenticationSendCommand decode(SubmissionQueueEntry sqe) {
        FabricsCommand.expect(sqe, FabricsCommandType.AUTH_SEND);
        return new AuthenticationSendCommand(CommandId.of(sqe.cid()), SglDescriptor.decode(sqe.dptr()),
                SecurityProtocolFields.secpOf(sqe), SecurityProtocolFields.spsp0Of(sqe),
                SecurityProtocolFields.spsp1Of(sqe), tlOf(sqe));
    }
}
