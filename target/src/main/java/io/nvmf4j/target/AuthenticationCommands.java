package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.fabrics.SecurityProtocolFields;

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
        return parse(req, AuthenticationCommands::send, DataDirection.HOST_TO_CONTROLLER);
    }

    static Status parseReceive(Request req) {
        return parse(req, AuthenticationCommands::receive, DataDirection.CONTROLLER_TO_HOST);
    }

    /**
     * Either command's checks, on the bytes both share ({@link SecurityProtocolFields}): SECP, SPSP0, SPSP1, then
     * TL (Send, the bytes coming) or AL (Receive, the room the host gives) at 47:44, neither 0 nor over the bound.
     */
    private static Status parse(Request req, CommandHandler handler, DataDirection direction) {
        SubmissionQueueEntry sqe = req.sqe();
        Status s = checkSecurityProtocol(req, SecurityProtocolFields.secpOf(sqe),
                SecurityProtocolFields.spsp0Of(sqe), SecurityProtocolFields.spsp1Of(sqe));
        if (!s.isSuccess()) {
            return s;
        }
        long length = SecurityProtocolFields.alTlOf(sqe);
        if (length == 0 || length > QueueAuthentication.MAX_TRANSFER) {
            req.errorLocation(SecurityProtocolFields.OFFSET_AL_TL);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        req.prepared(handler, direction, length);
        return Status.SUCCESS;
    }

    /** SECP, SPSP0, SPSP1 of either command (the same bytes in both, see {@link SecurityProtocolFields}). */
    private static Status checkSecurityProtocol(Request req, int secp, int spsp0, int spsp1) {
        int at = -1;
        if (secp != AuthMessage.SECP_AUTHENTICATION) {
            at = SecurityProtocolFields.OFFSET_SECP;
        } else if (spsp0 != AuthMessage.SPSP0) {
            at = SecurityProtocolFields.OFFSET_SPSP0;
        } else if (spsp1 != AuthMessage.SPSP1) {
            at = SecurityProtocolFields.OFFSET_SPSP1;
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
