package io.nvmf4j.target;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.auth.AuthFailure;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.auth.DhchapControllerSession;
import io.nvmf4j.protocol.auth.DhchapFailureReason;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * DH-HMAC-CHAP on one queue of the target (nvmet's {@code sq->dhchap_*} and {@code sq->authenticated}, driven by
 * {@code nvmet_execute_auth_send()} / {@code nvmet_execute_auth_receive()}): the protocol's
 * {@link DhchapControllerSession}, the queue's gate ({@link #permits}: nothing but Authentication Send/Receive
 * until authenticated, nvmet_check_auth_status()), the deadline, the log line and the metric.
 *
 * <p>A failure is final: the response carrying AUTH_Failure1 (or acknowledging the host's AUTH_Failure2) goes out,
 * then the controller fails and its queues close (nvmet_ctrl_fatal_error()). A transaction that has not ended
 * within {@link NvmeTarget#authenticationTimeout()} fails the controller too. Logged once per queue, naming host,
 * subsystem, queue and reason, never a key.
 *
 * <p>Threading: Authentication Send/Receive run on the queue's poll thread, the deadline on the target's timer
 * thread; the methods that change state are synchronized (a handful of calls per queue). {@link #permits} reads a
 * volatile on every command and allocates nothing.
 */
final class QueueAuthentication {

    private static final System.Logger LOG = System.getLogger(QueueAuthentication.class.getName());

    /** Largest TL / AL accepted: twice Linux' CHAP_BUF_SIZE; the largest real message is 1168 bytes. */
    static final int MAX_TRANSFER = 8192;
    /**
     * AUTH_Negotiate messages a queue may send before it first authenticates. Each one costs the target a DH key
     * pair on the poll thread (milliseconds for ffdhe8192), so a peer that restarts the exchange again and again
     * is cut off; Linux restarts at most once (a retried transaction).
     */
    static final int MAX_NEGOTIATIONS_BEFORE_SUCCESS = 4;
    /** How long the answer carrying the failure has to leave before the controller is torn down. */
    private static final long FATAL_DELAY_MILLIS = 250;

    private final SubmissionQueue sq;
    private final Controller ctrl;
    private final DhchapKeys keys;
    private final DhchapControllerSession session;
    private final boolean required;
    private volatile boolean authenticated;
    private ScheduledFuture<?> deadline;
    private boolean failureReported;
    private boolean closed;
    private int keylessTid;
    private int negotiations;

    private QueueAuthentication(SubmissionQueue sq, Controller ctrl, DhchapKeys keys) {
        this.sq = sq;
        this.ctrl = ctrl;
        this.keys = keys;
        this.required = keys != null;
        this.session = keys == null ? null : new DhchapControllerSession(keys, ctrl.hostNqn(),
                ctrl.subsystem().nqn().value(), sq.target().secureRandom());
    }

    /** A queue of a host with keys: it must authenticate within the timeout, starting now (its Connect). */
    static QueueAuthentication required(SubmissionQueue sq, Controller ctrl, DhchapKeys keys) {
        QueueAuthentication a = new QueueAuthentication(sq, ctrl, keys);
        synchronized (a) {
            a.armDeadline();
        }
        return a;
    }

    /** A host without a key that sends Authentication Send anyway: answered with AUTH_Failure1. */
    static QueueAuthentication keyless(SubmissionQueue sq, Controller ctrl) {
        return new QueueAuthentication(sq, ctrl, null);
    }

    /** Whether the command may run on this queue now: always once authenticated, else only authentication. */
    boolean permits(SubmissionQueueEntry sqe) {
        if (!required || authenticated) {
            return true;
        }
        if (sqe.opcode() != FabricsCommandType.OPCODE) {
            return false;
        }
        int fctype = Wire.u8(sqe.segment(), FabricsCommands.OFFSET_FCTYPE);
        return fctype == FabricsCommandType.AUTH_SEND.value() || fctype == FabricsCommandType.AUTH_RECEIVE.value();
    }

    boolean authenticated() {
        return authenticated;
    }

    /** The data of an Authentication Send arrived (TL bytes in {@code req.data()}). */
    synchronized Status onSend(Request req) {
        MemorySegment data = req.data();
        if (session == null) {
            // the T_ID to answer with in AUTH_Failure1 (nvmet answers a host without key the same way, later)
            keylessTid = data.byteSize() >= AuthMessage.OFFSET_T_ID + 2
                    ? Short.toUnsignedInt(data.get(Wire.LE_U16, AuthMessage.OFFSET_T_ID)) : 0;
            return Status.SUCCESS;
        }
        boolean wasInProgress = session.inProgress();
        int before = session.transactions();
        if (!authenticated && isNegotiate(data) && ++negotiations > MAX_NEGOTIATIONS_BEFORE_SUCCESS) {
            session.expire(negotiations - 1 + " AUTH_Negotiate messages without authenticating");
            afterStep(req, before);
            return Status.SUCCESS;
        }
        session.onSend(data);
        if (!wasInProgress && session.inProgress()) {
            // a new transaction (first one, restart or re-authentication): it gets its own bound
            armDeadline();
        }
        afterStep(req, before);
        return Status.SUCCESS;
    }

    private static boolean isNegotiate(MemorySegment data) {
        try {
            return AuthMessage.peekType(data) == AuthMessage.TYPE_COMMON
                    && AuthMessage.peekId(data) == AuthMessage.ID_NEGOTIATE;
        } catch (MalformedStructureException e) {
            return false;
        }
    }

    /** An Authentication Receive: writes the Challenge, Success1 or AUTH_Failure1 into {@code req.data()}. */
    synchronized Status onReceive(Request req) {
        MemorySegment data = req.data();
        AuthMessage message;
        int before = session == null ? 0 : session.transactions();
        if (session == null) {
            message = AuthFailure.failure1(keylessTid, DhchapFailureReason.FAILED);
            reportFailure(AuthOutcome.NO_KEY, "no DH-HMAC-CHAP key is configured for this host");
            failController(req);
        } else {
            message = session.onReceive();
        }
        if (message.encodedSize() > data.byteSize()) {
            // the host's buffer cannot take the message: the transaction cannot go on
            if (session != null) {
                session.expire("Authentication Receive AL " + data.byteSize() + " too small for "
                        + message.encodedSize() + " bytes");
                afterStep(req, before);
            }
            req.errorLocation(io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand.OFFSET_AL);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        // the buffer may hold an earlier command's bytes: nothing but the message leaves
        data.fill((byte) 0);
        message.encode(data);
        if (session != null) {
            afterStep(req, before);
        }
        return Status.SUCCESS;
    }

    /** Logs, counts and acts on what the last step did. */
    private void afterStep(Request req, int transactionsBefore) {
        authenticated = session.authenticated();
        if (session.transactions() > transactionsBefore) {
            cancelDeadline();
            sq.target().authenticationObserver().authentication(AuthOutcome.SUCCESS);
            LOG.log(Level.INFO, "host {0} {1} on queue {2} of controller {3} ({4}): {5}, DH group {6}, {7}",
                    ctrl.hostNqn(), session.transactions() > 1 ? "re-authenticated" : "authenticated",
                    sq.qidValue(), ctrl.id(), ctrl.subsystem().nqn(), session.hash(), session.dhGroup(),
                    session.bidirectional() ? "bidirectional" : "unidirectional");
        }
        if (session.failed()) {
            cancelDeadline();
            reportFailure(AuthOutcome.of(session.failureReason()), session.failureDetail());
            failController(req);
        }
    }

    private void reportFailure(AuthOutcome outcome, String detail) {
        if (failureReported) {
            return;
        }
        failureReported = true;
        sq.target().authenticationObserver().authentication(outcome);
        LOG.log(Level.WARNING, "host {0}: authentication on queue {1} of controller {2} ({3}) from {4} failed: "
                        + "{5} ({6})", ctrl.hostNqn(), sq.qidValue(), ctrl.id(), ctrl.subsystem().nqn(),
                sq.transport().remoteAddress(), outcome.reason(), detail);
    }

    /**
     * After the response that ends the transaction has left, fail the controller (its queues close). Not at once:
     * the host should read the AUTH_Failure1 (nvmet's fatal error also runs from a work queue, after the
     * response); meanwhile the queue takes nothing but authentication.
     */
    private void failController(Request req) {
        sq.target().timers().schedule(() -> ctrl.fatalError("authentication failed"), FATAL_DELAY_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private void armDeadline() {
        cancelDeadline();
        if (closed) {
            return;
        }
        long millis = sq.target().authenticationTimeout().toMillis();
        deadline = sq.target().timers().schedule(this::expired, millis, TimeUnit.MILLISECONDS);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    /** The deadline passed: a transaction still running (or never started) ends, and so does the controller. */
    private void expired() {
        synchronized (this) {
            deadline = null;
            if (closed || session == null || (!session.inProgress() && session.authenticated())
                    || session.failed()) {
                return;
            }
            String why = "not authenticated within " + sq.target().authenticationTimeout().toMillis() + " ms (step "
                    + session.state() + ")";
            session.expire(why);
            authenticated = false;
            reportFailure(AuthOutcome.TIMEOUT, why);
        }
        ctrl.fatalError("authentication timeout");
    }

    /** The queue is gone: no timer may outlive it. */
    synchronized void close() {
        closed = true;
        cancelDeadline();
        if (session != null && !session.failed()) {
            session.expire("queue closed");
        }
        authenticated = false;
    }
}
