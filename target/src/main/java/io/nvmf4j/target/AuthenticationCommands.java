package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand;
import io.nvmf4j.protocol.fabrics.AuthenticationSendCommand;
import java.lang.foreign.MemorySegment;

/**
 * Authentication Send and Authentication Receive (fabrics FCTYPE 05h/06h; NVMe Base 2.0, 6.1/6.2; Linux
 * {@code nvmet_execute_auth_send()} / {@code nvmet_execute_auth_receive()} in {@code fabrics-cmd-auth.c}), on the
 * admin queue and on I/O queues. The SQE checks are nvmet's (Invalid Field with the error location of SECP, SPSP0,
 * SPSP1, TL/AL); TL and AL are also bounded ({@link QueueAuthentication#MAX_TRANSFER}) before any buffer is taken.
 * The protocol itself is {@link QueueAuthentication}'s.
 */
final class AuthenticationCommands {

    private AuthenticationCommands() {
    }

    static Status parseSend(Request req) {
        Status s = checkSecurityProtocol(req, AuthenticationSendCommand.OFFSET_SECP,
                AuthenticationSendCommand.OFFSET_SPSP0, AuthenticationSendCommand.OFFSET_SPSP1);
        if (!s.isSuccess()) {
            return s;
        }
        long tl = Wire.u32(req.sqe().segment(), AuthenticationSendCommand.OFFSET_TL);
        if (tl == 0 || tl > QueueAuthentication.MAX_TRANSFER) {
            req.errorLocation(AuthenticationSendCommand.OFFSET_TL);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        req.prepared(AuthenticationCommands::send, DataDirection.HOST_TO_CONTROLLER, tl);
        return Status.SUCCESS;
    }

    static Status parseReceive(Request req) {
        Status s = checkSecurityProtocol(req, AuthenticationReceiveCommand.OFFSET_SECP,
                AuthenticationReceiveCommand.OFFSET_SPSP0, AuthenticationReceiveCommand.OFFSET_SPSP1);
        if (!s.isSuccess()) {
            return s;
        }
        long al = Wire.u32(req.sqe().segment(), AuthenticationReceiveCommand.OFFSET_AL);
        if (al == 0 || al > QueueAuthentication.MAX_TRANSFER) {
            req.errorLocation(AuthenticationReceiveCommand.OFFSET_AL);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        req.prepared(AuthenticationCommands::receive, DataDirection.CONTROLLER_TO_HOST, al);
        return Status.SUCCESS;
    }

    private static Status checkSecurityProtocol(Request req, int secpAt, int spsp0At, int spsp1At) {
        MemorySegment s = req.sqe().segment();
        int at = -1;
        if (Wire.u8(s, secpAt) != AuthMessage.SECP_AUTHENTICATION) {
            at = secpAt;
        } else if (Wire.u8(s, spsp0At) != AuthMessage.SPSP0) {
            at = spsp0At;
        } else if (Wire.u8(s, spsp1At) != AuthMessage.SPSP1) {
            at = spsp1At;
        }
        if (at >= 0) {
            req.errorLocation(at);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        return Status.SUCCESS;
    }

    private static Status send(Request req) {
        Status length = Transfers.checkLength(req, req.expectedDataLength());
        if (!length.isSuccess()) {
            return length;
        }
        return req.queue().authentication().onSend(req);
    }

    private static Status receive(Request req) {
        Status length = Transfers.checkLength(req, req.expectedDataLength());
        if (!length.isSuccess()) {
            return length;
        }
        return req.queue().authentication().onReceive(req);
    }
}
