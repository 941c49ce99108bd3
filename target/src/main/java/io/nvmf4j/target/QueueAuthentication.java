package io.nvmf4j.target;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.AuthFailure;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.auth.DhchapControllerSession;
import io.nvmf4j.protocol.auth.DhchapFailureReason;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand;
import io.nvmf4j.protocol.fabrics.FabricsCommand;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

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
 * <p>Threading: the steps of a host with a key run on the target's authentication executor
 * ({@link NvmeTarget#authenticationExecutor()}), never on the queue's thread: a Challenge costs a DH key pair and
 * a Reply a key agreement (about 10 ms each in ffdhe8192), which any peer naming an allowed host NQN can ask for
 * without a secret; on the poll thread that would stall every queue of its poll group (Linux nvmet computes them
 * in a work queue too). The command {@linkplain ExecutionState#WAITING_FOR_AUTHENTICATION waits}; the step works on a copy of the Send data, and
 * its result is written into the request's buffer and completed back on the queue's own thread
 * ({@link TransportQueue#runOnQueueThread}), only if the queue is still open and that command still waits. A queue
 * has at most one step in the executor (a second command meanwhile gets Command Sequence Error); a full executor
 * fails the exchange (AUTH_Failure1, reason failed; metric reason {@code busy}). State is guarded by {@link #lock},
 * held by a step for its computation: the queue's thread never waits for it ({@link #close} only tries it), the
 * deadline on the timer thread only tries it and looks again shortly. {@link #permits} reads a volatile on every
 * command and allocates nothing.
 */
final class QueueAuthentication {

    private static final System.Logger LOG = System.getLogger(QueueAuthentication.class.getName());

    /** Largest TL / AL accepted: twice Linux' CHAP_BUF_SIZE; the largest real message is 1168 bytes. */
    static final int MAX_TRANSFER = 8192;
    /**
     * AUTH_Negotiate messages a queue may send before it first authenticates. Each one costs the target a DH key
     * pair (milliseconds for ffdhe8192, on the authentication executor), so a peer that restarts the exchange again
     * and again is cut off; Linux restarts at most once (a retried transaction).
     */
    static final int MAX_NEGOTIATIONS_BEFORE_SUCCESS = 4;
    /** How long the answer carrying the failure has to leave before the controller is torn down. */
    private static final long FATAL_DELAY_MILLIS = 250;
    /** How soon the deadline looks again when it fires while a step is being computed. */
    private static final long DEADLINE_RETRY_MILLIS = 20;

    private final SubmissionQueue sq;
    private final Controller ctrl;
    private final DhchapControllerSession session;
    private final boolean required;
    /** Guards the session and the fields below it; a step holds it while it computes. */
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean authenticated;
    private volatile boolean closed;
    private final AtomicReference<ScheduledFuture<?>> deadline = new AtomicReference<>();
    private int deadlineGeneration;
    private boolean failureReported;
    private int keylessTid;
    private int negotiations;
    /** The command whose step is in the executor; the queue's thread only. */
    private Request pending;

    /** What a step computed, for the queue's thread to write and complete. */
    private record Outcome(Status status, byte[] message, int errorLocation) {
    }

    private QueueAuthentication(SubmissionQueue sq, Controller ctrl, DhchapKeys keys) {
        this.sq = sq;
        this.ctrl = ctrl;
        this.required = keys != null;
        this.session = keys == null ? null : new DhchapControllerSession(keys, ctrl.hostNqn(),
                ctrl.subsystem().nqn().value(), sq.target().secureRandom());
    }

    /** A queue of a host with keys: it must authenticate within the timeout, starting now (its Connect). */
    static QueueAuthentication required(SubmissionQueue sq, Controller ctrl, DhchapKeys keys) {
        QueueAuthentication a = new QueueAuthentication(sq, ctrl, keys);
        a.lock.lock();
        try {
            a.armDeadline();
        } finally {
            a.lock.unlock();
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
        int fctype = FabricsCommand.fctypeOf(sqe);
        return fctype == FabricsCommandType.AUTH_SEND.value() || fctype == FabricsCommandType.AUTH_RECEIVE.value();
    }

    boolean authenticated() {
        return authenticated;
    }

    /** The data of an Authentication Send arrived (TL bytes in {@code req.data()}); the queue's thread. */
    Status onSend(Request req) {
        MemorySegment data = req.data();
        if (session == null) {
            lock.lock();
            try {
                // the T_ID to answer with in AUTH_Failure1 (nvmet answers a host without key the same way, later)
                keylessTid = data.byteSize() >= AuthMessage.HEADER_SIZE ? AuthMessage.peekTid(data) : 0;
            } finally {
                lock.unlock();
            }
            return Status.SUCCESS;
        }
        if (pending != null) {
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        // the step reads a copy: the buffer belongs to the queue's thread (at most MAX_TRANSFER bytes)
        MemorySegment copy = MemorySegment.ofArray(data.toArray(ValueLayout.JAVA_BYTE));
        return defer(req, () -> sendStep(copy), false);
    }

    /** An Authentication Receive: the Challenge, Success1 or AUTH_Failure1 into {@code req.data()}; queue thread. */
    Status onReceive(Request req) {
        if (session == null) {
            lock.lock();
            try {
                reportFailure(AuthOutcome.NO_KEY, "no DH-HMAC-CHAP key is configured for this host");
                failController();
                return write(req, encode(AuthFailure.failure1(keylessTid, DhchapFailureReason.FAILED)));
            } finally {
                lock.unlock();
            }
        }
        if (pending != null) {
            return StatusCode.CMD_SEQ_ERROR.withDnr();
        }
        long al = req.data().byteSize();
        return defer(req, () -> receiveStep(al), true);
    }

    /**
     * Hands a step to the target's authentication executor; the command completes when it is done. A full
     * executor ends the exchange at once, as a failed authentication: nothing waits on the queue's thread.
     */
    private Status defer(Request req, Supplier<Outcome> step, boolean receive) {
        pending = req;
        req.waitFor(ExecutionState.WAITING_FOR_AUTHENTICATION);
        try {
            sq.target().authenticationExecutor().execute(() -> {
                Outcome o = runStep(step);
                if (o != null) {
                    sq.transport().runOnQueueThread(() -> finish(req, o));
                }
            });
        } catch (RejectedExecutionException e) {
            pending = null;
            return busy(req, receive);
        }
        return null;
    }

    /** Executor thread: one step under the lock; null when the queue closed meanwhile (nothing to answer). */
    private Outcome runStep(Supplier<Outcome> step) {
        if (closed) {
            return null;
        }
        lock.lock();
        try {
            if (closed) {
                return null;
            }
            Outcome o = step.get();
            if (closed) {
                // the queue went while this step ran (close() could not take the lock): end the session here
                closeSession();
                return null;
            }
            return o;
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "authentication step on queue " + sq.qidValue() + " of controller " + ctrl.id()
                    + " failed unexpectedly", e);
            return new Outcome(StatusCode.INTERNAL.withDnr(), null, Request.NO_ERROR_LOCATION);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The queue's thread: writes the step's result into the command's buffer and completes it, unless the queue
     * closed (its buffer may be back in the pool; close() answered the command) or the command is not the one
     * waiting.
     */
    private void finish(Request req, Outcome o) {
        if (closed || pending != req || req.isCompleted()) {
            return;
        }
        pending = null;
        if (o.message() != null) {
            write(req, o.message());
        }
        if (o.errorLocation() != Request.NO_ERROR_LOCATION) {
            req.errorLocation(o.errorLocation());
        }
        sq.complete(req, o.status());
    }

    /** The executor's queue is full: the exchange fails now, like an authentication failure (queue's thread). */
    private Status busy(Request req, boolean receive) {
        lock.lock();
        try {
            String why = "authentication executor busy (" + NvmeTarget.AUTHENTICATION_QUEUE + " steps waiting)";
            if (!receive && isNegotiate(req.data())) {
                // only to learn the T_ID the AUTH_Failure1 must carry: decoding a Negotiate costs no DH work
                session.onSend(req.data());
            }
            session.expire(why);
            authenticated = false;
            cancelDeadline();
            reportFailure(AuthOutcome.BUSY, why);
            failController();
            if (!receive) {
                return Status.SUCCESS; // the host's next Authentication Receive gets the AUTH_Failure1
            }
            AuthMessage failure = session.onReceive();
            if (failure.encodedSize() > req.data().byteSize()) {
                req.errorLocation(AuthenticationReceiveCommand.OFFSET_AL);
                return StatusCode.INVALID_FIELD.withDnr();
            }
            return write(req, encode(failure));
        } finally {
            lock.unlock();
        }
    }

    /** Executor thread, under the lock: the Send step. */
    private Outcome sendStep(MemorySegment data) {
        int before = session.transactions();
        if (!authenticated && isNegotiate(data) && ++negotiations > MAX_NEGOTIATIONS_BEFORE_SUCCESS) {
            session.expire(negotiations - 1 + " AUTH_Negotiate messages without authenticating");
            afterStep(before);
            return new Outcome(Status.SUCCESS, null, Request.NO_ERROR_LOCATION);
        }
        boolean wasInProgress = session.inProgress();
        session.onSend(data);
        if (!wasInProgress && session.inProgress()) {
            // a new transaction (first one, restart or re-authentication): it gets its own bound
            armDeadline();
        }
        afterStep(before);
        return new Outcome(Status.SUCCESS, null, Request.NO_ERROR_LOCATION);
    }

    /** Executor thread, under the lock: the Receive step for a buffer of {@code al} bytes. */
    private Outcome receiveStep(long al) {
        int before = session.transactions();
        AuthMessage message = session.onReceive();
        if (message.encodedSize() > al) {
            // the host's buffer cannot take the message: the transaction cannot go on
            session.expire("Authentication Receive AL " + al + " too small for " + message.encodedSize()
                    + " bytes");
            afterStep(before);
            return new Outcome(StatusCode.INVALID_FIELD.withDnr(), null,
                    AuthenticationReceiveCommand.OFFSET_AL);
        }
        byte[] bytes = encode(message);
        afterStep(before);
        return new Outcome(Status.SUCCESS, bytes, Request.NO_ERROR_LOCATION);
    }

    private static byte[] encode(AuthMessage message) {
        byte[] bytes = new byte[message.encodedSize()];
        message.encode(MemorySegment.ofArray(bytes));
        return bytes;
    }

    /** The queue's thread: the message and zeros after it (the buffer may hold an earlier command's bytes). */
    private static Status write(Request req, byte[] message) {
        MemorySegment data = req.data();
        if (message.length > data.byteSize()) {
            req.errorLocation(AuthenticationReceiveCommand.OFFSET_AL);
            return StatusCode.INVALID_FIELD.withDnr();
        }
        data.fill((byte) 0);
        MemorySegment.copy(message, 0, data, ValueLayout.JAVA_BYTE, 0, message.length);
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

    /** Logs, counts and acts on what the last step did (under the lock). */
    private void afterStep(int transactionsBefore) {
        authenticated = session.authenticated();
        if (session.transactions() > transactionsBefore) {
            cancelDeadline();
            if (session.transactions() == 1 && sq.qidValue() == 0) {
                ctrl.startKeepAlive(); // held back since Connect (FabricsCommands)
            }
            sq.target().authenticationObserver().authentication(AuthOutcome.SUCCESS);
            LOG.log(Level.INFO, "host {0} {1} on queue {2} of controller {3} ({4}): {5}, DH group {6}, {7}",
                    ctrl.hostNqn(), session.transactions() > 1 ? "re-authenticated" : "authenticated",
                    sq.qidValue(), ctrl.id(), ctrl.subsystem().nqn(), session.hash(), session.dhGroup(),
                    session.bidirectional() ? "bidirectional" : "unidirectional");
        }
        if (session.failed()) {
            cancelDeadline();
            reportFailure(AuthOutcome.of(session.failureReason()), session.failureDetail());
            failController();
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
    private void failController() {
        sq.target().timers().schedule(() -> ctrl.fatalError("authentication failed"), FATAL_DELAY_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** Under the lock. */
    private void armDeadline() {
        cancelDeadline();
        if (closed) {
            return;
        }
        int generation = ++deadlineGeneration;
        long millis = sq.target().authenticationTimeout().toMillis();
        deadline.set(sq.target().timers().schedule(() -> expired(generation), millis, TimeUnit.MILLISECONDS));
    }

    private void cancelDeadline() {
        ScheduledFuture<?> d = deadline.getAndSet(null);
        if (d != null) {
            d.cancel(false);
        }
    }

    /**
     * The deadline passed (timer thread): a transaction still running (or never started) ends, and so does the
     * controller. A step being computed holds the lock for milliseconds: the shared timer thread does not wait for
     * it, it looks again shortly.
     */
    private void expired(int generation) {
        if (!lock.tryLock()) {
            sq.target().timers().schedule(() -> expired(generation), DEADLINE_RETRY_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        try {
            if (generation != deadlineGeneration || closed || session == null
                    || (!session.inProgress() && session.authenticated()) || session.failed()) {
                return;
            }
            deadline.set(null);
            String why = "not authenticated within " + sq.target().authenticationTimeout().toMillis() + " ms (step "
                    + session.state() + ")";
            session.expire(why);
            authenticated = false;
            reportFailure(AuthOutcome.TIMEOUT, why);
        } finally {
            lock.unlock();
        }
        ctrl.fatalError("authentication timeout");
    }

    /**
     * The queue is gone (the queue's thread, from {@link SubmissionQueue#destroy()}): no timer may outlive it, and
     * a command whose step is in the executor is answered now (aborted, SQ deleted), so the transport takes its
     * context and buffer back at once; the step's result, when it comes, is dropped. Never waits for a step.
     */
    void close() {
        closed = true;
        authenticated = false;
        cancelDeadline();
        Request p = pending;
        pending = null;
        if (p != null && !p.isCompleted()) {
            sq.complete(p, StatusCode.ABORT_QUEUE.status());
        }
        if (lock.tryLock()) {
            try {
                closeSession();
            } finally {
                lock.unlock();
            }
        }
        // else a step runs: it sees closed when done and ends the session itself
    }

    /** Under the lock. */
    private void closeSession() {
        cancelDeadline();
        if (session != null && !session.failed()) {
            session.expire("queue closed");
        }
        authenticated = false;
    }
}
