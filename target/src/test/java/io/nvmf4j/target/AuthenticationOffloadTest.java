package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.HOST;
import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapHostSession;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapReply;
import io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand;
import io.nvmf4j.protocol.fabrics.AuthenticationSendCommand;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import java.lang.foreign.MemorySegment;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.auth.AuthFailure;
import io.nvmf4j.protocol.auth.DhchapFailureReason;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Diffie-Hellman work of DH-HMAC-CHAP (a key pair for the Challenge, the key agreement when the Reply arrives:
 * about 10 ms each in ffdhe8192) is done off the queue's thread. Any peer that names an allowed host NQN with a key
 * can ask for it without knowing a secret; on the poll thread every attempt would stall every queue of the poll
 * group. Linux nvmet likewise computes it in a work queue, not in its I/O path.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AuthenticationOffloadTest {

    private final List<AuthOutcome> outcomes = new CopyOnWriteArrayList<>();
    private final DhchapKeys keys8192 = DhchapKeys.of(AuthenticationTest.KEY)
            .restrictedTo(DhchapHash.SHA256, DhchapDhGroup.FFDHE8192);
    private final TargetFixture fx = new TargetFixture(Subsystem.builder(Nqn.parse(SUBNQN)).serial("AUTH2")
            .allowHost(HOST, keys8192));

    {
        fx.target.authenticationObserver(outcomes::add);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    /** Submits like a poll thread does (prepare, execute) and returns at once, completed or not. */
    static Request submitOnQueueThread(LoopHost host, LoopHost.Queue q, SubmissionQueueEntry sqe,
            MemorySegment data) {
        sqe.psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);
        Request r = new Request().reset(sqe);
        assertTrue(q.sq().prepare(r));
        r.data(data);
        q.sq().execute(r);
        return r;
    }

    static Request sendOnQueueThread(LoopHost host, LoopHost.Queue q, AuthMessage m) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AuthenticationSendCommand.dhchap(CommandId.of(7), DataBlockDescriptor.inCapsule(0, m.encodedSize()),
                m.encodedSize()).encode(sqe);
        MemorySegment data = host.buffer(m.encodedSize());
        m.encode(data);
        return submitOnQueueThread(host, q, sqe, data);
    }

    static Request receiveOnQueueThread(LoopHost host, LoopHost.Queue q, MemorySegment data) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AuthenticationReceiveCommand.dhchap(CommandId.of(8), DataBlockDescriptor.inCapsule(0, data.byteSize()),
                (int) data.byteSize()).encode(sqe);
        return submitOnQueueThread(host, q, sqe, data);
    }

    @Test
    void challengeAndReplyOfFfdhe8192AreComputedOffTheQueueThread() throws Exception {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        LoopTransportQueue t = host.admin.transport();
        DhchapHostSession s = new DhchapHostSession(keys8192, HOST, SUBNQN, 1, AuthenticationTest.RANDOM);

        Request negotiate = sendOnQueueThread(host, host.admin, s.start());
        assertTrue(t.runTasksUntil(negotiate::isCompleted, 20_000));
        assertEquals(0, negotiate.statusField());

        // the Challenge needs a fresh ffdhe8192 key pair: the queue's thread must not wait for it
        MemorySegment challenge = host.buffer(4096);
        Request receive = receiveOnQueueThread(host, host.admin, challenge);
        assertFalse(receive.isCompleted(), "the Challenge (DH key generation) was computed on the queue's thread");
        int tasksBefore = t.tasksRun.get();
        assertTrue(t.runTasksUntil(receive::isCompleted, 20_000));
        assertTrue(t.tasksRun.get() > tasksBefore, "the result comes back through the queue's own thread");
        assertEquals(0, receive.statusField());
        DhchapReply reply = s.onChallenge(challenge);

        // the Reply costs a key agreement: likewise off the queue's thread
        Request send = sendOnQueueThread(host, host.admin, reply);
        assertFalse(send.isCompleted(), "the Reply (DH key agreement) was checked on the queue's thread");
        assertTrue(t.runTasksUntil(send::isCompleted, 20_000));
        assertEquals(0, send.statusField());

        MemorySegment success1 = host.buffer(4096);
        Request last = receiveOnQueueThread(host, host.admin, success1);
        assertTrue(t.runTasksUntil(last::isCompleted, 20_000));
        assertNull(s.onSuccess1(success1));
        assertTrue(host.admin.sq().authenticated());
        assertEquals(List.of(AuthOutcome.SUCCESS), outcomes);
        assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(
                th -> th.getName().startsWith("nvmf4j-auth-") && th.isDaemon()), "the target's auth threads");
    }

    @Test
    void anAttackerLoopingNegotiateAndGarbageRepliesNeverMakesTheQueueThreadCompute() throws Exception {
        // the attack of the brief: Negotiate(ffdhe8192), read the Challenge, Reply with any DH value; repeated
        for (int attempt = 0; attempt < 3; attempt++) {
            LoopHost attacker = fx.host();
            attacker.connectAdmin(SUBNQN, 0);
            LoopTransportQueue t = attacker.admin.transport();
            DhchapHostSession s = new DhchapHostSession(keys8192, HOST, SUBNQN, attempt,
                    AuthenticationTest.RANDOM);
            Request negotiate = sendOnQueueThread(attacker, attacker.admin, s.start());
            assertTrue(t.runTasksUntil(negotiate::isCompleted, 20_000));
            MemorySegment challenge = attacker.buffer(4096);
            Request receive = receiveOnQueueThread(attacker, attacker.admin, challenge);
            assertFalse(receive.isCompleted(), "key generation on the queue's thread");
            assertTrue(t.runTasksUntil(receive::isCompleted, 20_000));
            byte[] garbage = new byte[DhchapDhGroup.FFDHE8192.valueLength()];
            AuthenticationTest.RANDOM.nextBytes(garbage);
            garbage[0] = 0x40; // below the prime, above 1
            DhchapReply bogus = new DhchapReply(attempt, new byte[32], false, 0, new byte[32], garbage);
            Request send = sendOnQueueThread(attacker, attacker.admin, bogus);
            assertFalse(send.isCompleted(), "key agreement on the queue's thread");
            assertTrue(t.runTasksUntil(send::isCompleted, 20_000));
            // the response does not match: AUTH_Failure1, then the controller goes
            MemorySegment failure = attacker.buffer(4096);
            Request last = receiveOnQueueThread(attacker, attacker.admin, failure);
            assertTrue(t.runTasksUntil(last::isCompleted, 20_000));
            assertTrue(t.disconnected.await(10, TimeUnit.SECONDS));
        }
    }

    /** An executor that holds the steps until the test runs them: "the DH work is still being computed". */
    static final class HeldSteps implements java.util.concurrent.Executor {
        final LinkedBlockingQueue<Runnable> steps = new LinkedBlockingQueue<>();

        @Override
        public void execute(Runnable step) {
            steps.add(step);
        }

        void runAll() {
            Runnable r;
            while ((r = steps.poll()) != null) {
                r.run();
            }
        }
    }

    @Test
    void disconnectWhileTheChallengeIsComputedNeitherWritesTheBufferNorLeavesTheCommandUnanswered() {
        HeldSteps held = new HeldSteps();
        fx.target.authenticationExecutor(held);
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        LoopTransportQueue t = host.admin.transport();
        DhchapHostSession s = new DhchapHostSession(keys8192, HOST, SUBNQN, 1, AuthenticationTest.RANDOM);
        Request negotiate = sendOnQueueThread(host, host.admin, s.start());
        held.runAll();
        assertTrue(t.runTasksUntil(negotiate::isCompleted, 5_000));

        MemorySegment buffer = host.buffer(4096);
        buffer.fill((byte) 0x5A);
        Request receive = receiveOnQueueThread(host, host.admin, buffer);
        assertFalse(receive.isCompleted());
        assertEquals(1, held.steps.size(), "the key generation waits in the executor");

        // the connection drops mid-computation: the transport destroys the queue (on its own thread)
        int responsesBefore = t.responses.size();
        host.admin.sq().destroy();
        assertTrue(receive.isCompleted(), "the command in flight is answered at teardown, its context not leaked");
        assertEquals(StatusCode.ABORT_QUEUE.status().toField(), receive.statusField());
        assertEquals(responsesBefore + 1, t.responses.size());

        // the step finishes later: its result goes nowhere
        held.runAll();
        assertFalse(t.runTasksUntil(() -> false, 200));
        assertTrue(isAll(buffer, (byte) 0x5A),
                "nothing is written into the buffer of a closed queue");
        assertEquals(responsesBefore + 1, t.responses.size(), "completed exactly once");
        assertTrue(outcomes.isEmpty() || !outcomes.contains(AuthOutcome.SUCCESS));
    }

    private static boolean isAll(MemorySegment m, byte value) {
        for (long i = 0; i < m.byteSize(); i++) {
            if (m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != value) {
                return false;
            }
        }
        return true;
    }

    @Test
    void disconnectWhileTheStepRunsOnTheRealExecutorIsSafe() throws Exception {
        // the same on the target's own threads, a real ffdhe8192 key generation racing the teardown
        for (int i = 0; i < 5; i++) {
            LoopHost host = fx.host();
            host.connectAdmin(SUBNQN, 0);
            LoopTransportQueue t = host.admin.transport();
            DhchapHostSession s = new DhchapHostSession(keys8192, HOST, SUBNQN, i, AuthenticationTest.RANDOM);
            Request negotiate = sendOnQueueThread(host, host.admin, s.start());
            assertTrue(t.runTasksUntil(negotiate::isCompleted, 20_000));
            MemorySegment buffer = host.buffer(4096);
            buffer.fill((byte) 0x5A);
            Request receive = receiveOnQueueThread(host, host.admin, buffer);
            host.admin.sq().destroy();
            assertTrue(receive.isCompleted());
            Thread.sleep(100); // the key generation ends; its answer must be dropped
            t.runTasksUntil(() -> false, 100);
            assertTrue(isAll(buffer, (byte) 0x5A));
            assertEquals(1, t.responses.stream().filter(r -> r == receive).count());
        }
    }

    @Test
    void aFullAuthenticationExecutorFailsTheExchangeAsBusyWithoutBlocking() throws Exception {
        fx.target.authenticationExecutor(step -> {
            throw new RejectedExecutionException("full");
        });
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        DhchapHostSession s = new DhchapHostSession(keys8192, HOST, SUBNQN, 3, AuthenticationTest.RANDOM);
        Request negotiate = sendOnQueueThread(host, host.admin, s.start());
        assertTrue(negotiate.isCompleted(), "answered at once, on the queue's thread");
        assertEquals(0, negotiate.statusField());
        MemorySegment buffer = host.buffer(4096);
        Request receive = receiveOnQueueThread(host, host.admin, buffer);
        assertTrue(receive.isCompleted());
        assertEquals(0, receive.statusField());
        AuthFailure f = assertInstanceOf(AuthFailure.class, AuthMessage.decode(buffer));
        assertTrue(f.failure1());
        assertEquals(DhchapFailureReason.FAILED, f.reason());
        assertEquals(3, f.tid());
        assertEquals(List.of(AuthOutcome.BUSY), outcomes);
        assertTrue(host.admin.transport().disconnected.await(5, TimeUnit.SECONDS));
    }

    @Test
    void aQueueHasAtMostOneStepInTheExecutor() {
        HeldSteps held = new HeldSteps();
        fx.target.authenticationExecutor(held);
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        DhchapHostSession s = new DhchapHostSession(keys8192, HOST, SUBNQN, 1, AuthenticationTest.RANDOM);
        Request first = sendOnQueueThread(host, host.admin, s.start());
        assertFalse(first.isCompleted());
        // a hostile peer piles up commands without waiting: each extra one is refused at once
        for (int i = 0; i < 3; i++) {
            Request extra = receiveOnQueueThread(host, host.admin, host.buffer(4096));
            assertTrue(extra.isCompleted());
            assertEquals(StatusCode.CMD_SEQ_ERROR.withDnr().toField(), extra.statusField());
        }
        assertEquals(1, held.steps.size());
        held.runAll();
        assertTrue(host.admin.transport().runTasksUntil(first::isCompleted, 5_000));
        assertEquals(0, first.statusField());
    }
}
