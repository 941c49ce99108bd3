package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.sgl.SglDescriptor;

/**
 * Authentication Receive (FCTYPE 06h; NVMe Base 2.0, 6.1 "Authentication Receive command"; Linux {@code struct
 * nvmf_auth_receive_command}): fetches the controller's next authentication message into a buffer of AL bytes.
 *
 * <pre>
 *  0 opcode 7Fh | 2..3 CID | 4 FCTYPE 06h | 24..39 SGL1 (the AL-byte buffer)
 *  40 reserved (NSSF) | 41 SPSP0 | 42 SPSP1 | 43 SECP | 44..47 AL | 48..63 reserved
 * </pre>
 *
 * For DH-HMAC-CHAP: SECP E9h, SPSP0 01h, SPSP1 01h ({@link AuthMessage}). The layout is
 * the one Authentication Send shares ({@link SecurityProtocolFields}).
 */
public record AuthenticationReceiveCommand(CommandId cid, SglDescriptor sgl1, int secp, int spsp0, int spsp1, long al)
        implements FabricsCommand {

    /** AL (bytes 47:44); SPSP0, SPSP1 and SECP are at {@link SecurityProtocolFields}' offsets. */
    public static final int OFFSET_AL = SecurityProtocolFields.OFFSET_AL_TL;

    public AuthenticationReceiveCommand {
        SecurityProtocolFields.check(cid, sgl1, secp, spsp0, spsp1, "AL", al);
    }

    /** Room for a DH-HMAC-CHAP message of up to {@code length} bytes (SECP E9h, SPSP0/1 01h as Linux sends). */
    public static AuthenticationReceiveCommand dhchap(CommandId cid, SglDescriptor sgl1, int length) {
        return new AuthenticationReceiveCommand(cid, sgl1, AuthMessage.SECP_AUTHENTICATION, AuthMessage.SPSP0,
                AuthMessage.SPSP1, length);
    }

    @Override
    public FabricsCommandType fctype() {
        return FabricsCommandType.AUTH_RECEIVE;
    }

    @Override
    public void encode(SubmissionQueueEntry sqe) {
        SecurityProtocolFields.encode(sqe, FabricsCommandType.AUTH_RECEIVE, cid, sgl1, secp, spsp0, spsp1, al);
    }

    // A field read in place (no allocation); SECP, SPSP0 and SPSP1 are read by SecurityProtocolFields.

    /** AL (bytes 47:44), bytes. */
    public static long alOf(SubmissionQueueEntry sqe) {
        return SecurityProtocolFields.alTlOf(sqe);
    }

    public static AuthenticationReceiveCommand decode(SubmissionQueueEntry sqe) {
        FabricsCommand.expect(sqe, FabricsCommandType.AUTH_RECEIVE);
        return new AuthenticationReceiveCommand(CommandId.of(sqe.cid()), SglDescriptor.decode(sqe.dptr()),
                SecurityProtocolFields.secpOf(sqe), SecurityProtocolFields.spsp0Of(sqe),
                SecurityProtocolFields.spsp1Of(sqe), alOf(sqe));
    }
}
