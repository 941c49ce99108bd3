package io.nvmf4j.initiator;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.auth.DhchapException;
import io.nvmf4j.protocol.auth.DhchapFailureReason;
import io.nvmf4j.protocol.auth.DhchapHostSession;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapReply;
import io.nvmf4j.protocol.auth.DhchapSuccess2;
import io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand;
import io.nvmf4j.protocol.fabrics.AuthenticationSendCommand;
import io.nvmf4j.protocol.fabrics.ConnectResponse;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The host's DH-HMAC-CHAP on one queue, as Linux {@code nvme_auth_negotiate()} / {@code nvme_queue_auth_work()}
 * run it after a Connect whose response has AUTHREQ.ATR ({@code nvmf_connect_admin_queue()},
 * {@code nvmf_connect_io_queue()}): AUTH_Negotiate by Authentication Send, the Challenge by Authentication Receive
 * (4096-byte buffer, Linux CHAP_BUF_SIZE), the Reply, then Success1 and, bidirectional, Success2; a fault found
 * here goes back as AUTH_Failure2. Every command is bounded by the command timeout. Secrets never reach a log or
 * an exception message.
 */
final class DhchapAuthenticator {

    private static final Logger LOG = System.getLogger(NvmeController.class.getName());
    /** Authentication Receive buffer, Linux CHAP_BUF_SIZE. */
    static final int RECEIVE_BUFFER = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ConnectOptions options;
    private final String name;
    private final AtomicInteger transactions = new AtomicInteger();

    DhchapAuthenticator(ConnectOptions options, String name) {
        this.options = options;
        this.name = name;
    }

    /** How commands reach the queue: the bring-up path ({@code submitInit}) or a live queue ({@code submit}). */
    interface Runner {
        long run(HostQueue queue, FutureRequest command) throws NvmfException;
    }

    /**
     * After a successful Connect of {@code queue} with response DW0 {@code connectResult}: authenticate when the
     * controller asks, or unasked when a controller key demands bidirectional authentication.
     */
    void afterConnect(HostQueue queue, long connectResult, Runner runner) throws NvmfException {
        int dw0 = (int) connectResult;
        DhchapKeys keys = options.dhchap();
        boolean asked = ConnectResponse.authenticationRequired(dw0);
        if (ConnectResponse.secureChannelRequired(dw0)) {
            throw new NvmfAuthenticationException(name + ": " + queue.qid() + ": the controller requires a secure "
                    + "channel (AUTHREQ.ASCR), which nvmf4j does not implement", DhchapFailureReason.CONCAT_MISMATCH);
        }
        if (asked && keys == null) {
            // Linux: "qid N: authentication required" without a host key
            throw new NvmfAuthenticationException(name + ": " + queue.qid() + ": the controller requires "
                    + "DH-HMAC-CHAP authentication (AUTHREQ.ATR) and no secret was given (--dhchap-secret)",
                    DhchapFailureReason.FAILED);
        }
        if (!asked && (keys == null || !keys.bidirectional())) {
            return;
        }
        authenticate(queue, runner);
    }

    /** One transaction on {@code queue}; also the host-initiated re-authentication. */
    void authenticate(HostQueue queue, Runner runner) throws NvmfException {
        DhchapKeys keys = options.dhchap();
        if (keys == null) {
            throw new NvmfAuthenticationException(name + ": no DH-HMAC-CHAP secret to authenticate with",
                    DhchapFailureReason.FAILED);
        }
        int tid = transactions.getAndIncrement() & 0xFFFF;
        DhchapHostSession session = new DhchapHostSession(keys, options.host().hostNqn().value(),
                options.subsystemNqn().value(), tid, RANDOM);
        try {
            send(queue, runner, session.start());
            DhchapReply reply = session.onChallenge(receive(queue, runner));
            send(queue, runner, reply);
            DhchapSuccess2 success2 = session.onSuccess1(receive(queue, runner));
            if (success2 != null) {
                send(queue, runner, success2);
            }
        } catch (DhchapException e) {
            if (session.failure2() != null) {
                try {
                    send(queue, runner, session.failure2());
                } catch (NvmfException ignored) {
                    // the failure is reported anyway; the controller tears the queue down
                }
            }
            throw new NvmfAuthenticationException(name + ": DH-HMAC-CHAP authentication of " + queue.qid()
                    + " failed: " + e.getMessage() + (e.reportedByPeer() ? " (AUTH_Failure1 from the controller)"
                    : " (AUTH_Failure2 sent)"), e.reason(), e);
        } catch (NvmfException e) {
            session.abort();
            throw e;
        }
        LOG.log(queue.qid().value() == 0 ? Level.INFO : Level.DEBUG, () -> name + ": " + queue.qid()
                + " authenticated (" + session.hash() + ", DH group " + session.dhGroup() + ", "
                + (keys.bidirectional() ? "bidirectional" : "unidirectional") + ")");
    }

    private void send(HostQueue queue, Runner runner, AuthMessage message) throws NvmfException {
        int size = message.encodedSize();
        FutureRequest cmd = new FutureRequest("Authentication Send (" + message.getClass().getSimpleName() + ")",
                true, false, sqe -> AuthenticationSendCommand.dhchap(CommandId.of(0), nullSgl(), size).encode(sqe));
        cmd.copy(NvmeRequest.Direction.HOST_TO_CONTROLLER, MemorySegment.ofArray(message.toBytes()));
        runner.run(queue, cmd);
    }

    private MemorySegment receive(HostQueue queue, Runner runner) throws NvmfException {
        MemorySegment buffer = MemorySegment.ofArray(new byte[RECEIVE_BUFFER]);
        FutureRequest cmd = new FutureRequest("Authentication Receive", true, false,
                sqe -> AuthenticationReceiveCommand.dhchap(CommandId.of(0), nullSgl(), RECEIVE_BUFFER).encode(sqe));
        cmd.copy(NvmeRequest.Direction.CONTROLLER_TO_HOST, buffer);
        runner.run(queue, cmd);
        return buffer;
    }

    private static KeyedSglDescriptor nullSgl() {
        return new KeyedSglDescriptor(0, 0, 0, false);
    }
}
