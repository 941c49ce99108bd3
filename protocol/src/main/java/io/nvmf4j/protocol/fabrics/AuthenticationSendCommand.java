package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.sgl.SglDescriptor;

/**
 * Authentication Send (FCTYPE 05h; NVMe Base 2.0, 6.2 "Authentication Send command"; Linux {@code struct
 * nvmf_auth_send_command}): carries one authentication message, host to controller, of TL bytes.
 *
 * <pre>
 *  0 opcode 7Fh | 2..3 CID | 4 FCTYPE 05h | 24..39 SGL1 (the TL bytes of data)
 *  40 reserved (NSSF) | 41 SPSP0 | 42 SPSP1 | 43 SECP | 44..47 TL | 48..63 reserved
 * </pre>
 *
 * For DH-HMAC-CHAP: SECP E9h, SPSP0 01h, SPSP1 01h ({@link AuthMessage}). The layout is
 * the one Authentication Receive shares ({@link SecurityProtocolFields}).
 */
public record AuthenticationSendCommand(CommandId cid, SglDescriptor sgl1, int secp, int spsp0, int spsp1, long tl)
        implements FabricsCommand {

    /** TL (bytes 47:44); SPSP0, SPSP1 and SECP are at {@link SecurityProtocolFields}' offsets. */
    public static final int OFFSET_TL = SecurityProtocolFields.OFFSET_AL_TL;

    public AuthenticationSendCommand {
        SecurityProtocolFields.check(cid, sgl1, secp, spsp0, spsp1, "TL", tl);
    }

    /** A DH-HMAC-CHAP message of {@code length} bytes (SECP E9h, SPSP0/1 01h as Linux sends). */
    public static AuthenticationSendCommand dhchap(CommandId cid, SglDescriptor sgl1, int length) {
        return new AuthenticationSendCommand(cid, sgl1, AuthMessage.SECP_AUTHENTICATION, AuthMessage.SPSP0,
                AuthMessage.SPSP1, length);
    }

    @Override
    public FabricsCommandType fctype() {
        return FabricsCommandType.AUTH_SEND;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        SecurityProtocolFields.encode(sqe, FabricsCommandType.AUTH_SEND, cid, sgl1, secp, spsp0, spsp1, tl);
    }

    // A field read in place (no allocation); SECP, SPSP0 and SPSP1 are read by SecurityProtocolFields.

    /** TL (bytes 47:44), bytes. */
    public static long tlOf(SubmissionQueueEntry sqe) {
        return SecurityProtocolFields.alTlOf(sqe);
    }

    public static AuthenticationSendCommand decode(SubmissionQueueEntry sqe) {
        FabricsCommand.expect(sqe, FabricsCommandType.AUTH_SEND);
        return new AuthenticationSendCommand(CommandId.of(sqe.cid()), SglDescriptor.decode(sqe.dptr()),
                SecurityProtocolFields.secpOf(sqe), SecurityProtocolFields.spsp0Of(sqe),
                SecurityProtocolFields.spsp1Of(sqe), tlOf(sqe));
    }
}
