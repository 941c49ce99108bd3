package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapHostSession;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapReply;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.protocol.fabrics.AuthenticationReceiveCommand;
import io.nvmf4j.protocol.fabrics.AuthenticationSendCommand;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The starvation hole of DH-HMAC-CHAP on a real RDMA target with one poll group: a peer that names an allowed host
 * NQN with a key (NQNs are not secret) loops AUTH_Negotiate(ffdhe8192) / read the Challenge / Reply with a garbage
 * DH value, each attempt a DH key generation and a key agreement (about 10 ms each) on the target, while a
 * legitimate host on the same poll group keeps issuing commands. Structural, not timing: the poll-group thread is
 * sampled all along and must never be found in DH key generation or agreement (Linux nvmet does it in a work queue too).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DhchapOffPollThreadTest {

    static final SecureRandom RANDOM = new SecureRandom();
    static final DhchapKeys KEYS = DhchapKeys.of(DhchapSecret.generate(1, 32, RANDOM))
            .restrictedTo(DhchapHash.SHA256, DhchapDhGroup.FFDHE8192);
    static final int ATTEMPTS = 8;

    @TempDir
    Path dir;

    @Test
    void attackerLoopingNegotiateAndGarbageRepliesNeverMakesThePollThreadComputeDh() throws Exception {
        try (RdmaTargetFixture fixture = new RdmaTargetFixture(dir)) {
            fixture.subsystem.allowHost(RdmaTargetFixture.OTHER_HOST, KEYS);
            long[] pollThreads = fixture.transport.pollThreadIds();
            assertEquals(1, pollThreads.length);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicReference<String> caught = new AtomicReference<>();
            AtomicInteger samples = new AtomicInteger();
            Thread sampler = Thread.ofPlatform().daemon().name("dh-sampler").start(() -> {
                while (running.get()) {
                    ThreadInfo info = mx.getThreadInfo(pollThreads[0], 64);
                    if (info != null) {
                        samples.incrementAndGet();
                        for (StackTraceElement e : info.getStackTrace()) {
                            if (e.getClassName().equals("io.nvmf4j.protocol.auth.DhKeyExchange")) {
                                caught.compareAndSet(null, e.toString());
                            }
                        }
                    }
                    try {
                        Thread.sleep(0, 500_000);
                    } catch (InterruptedException ex) {
                        return;
                    }
                }
            });

            // the legitimate host on the same (only) poll group
            AtomicInteger legitimateCommands = new AtomicInteger();
            AtomicReference<Throwable> legitimateError = new AtomicReference<>();
            Thread legitimate;
            try (ScriptedRdmaHost host = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
                assertEquals(0, host.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                        RdmaTargetFixture.HOST).status());
                assertEquals(0, host.propertySet(0x14, ScriptedRdmaHost.CC_ENABLE_NVM).status());
                legitimate = Thread.ofPlatform().daemon().name("legitimate").start(() -> {
                    try {
                        while (running.get()) {
                            assertEquals(0, host.propertyGet(0x1c, false).status());
                            legitimateCommands.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        legitimateError.set(t);
                    }
                });

                int done = 0;
                while (done < ATTEMPTS) {
                    try (ScriptedRdmaHost attacker = ScriptedRdmaHost.connect(fixture.address, 0, 32)) {
                        assertEquals(0, attacker.connectCommand(0, 31, 0xFFFF, RdmaTargetFixture.SUBNQN,
                                RdmaTargetFixture.OTHER_HOST).status());
                        // four Negotiates per queue are allowed before it is cut off
                        for (int i = 0; i < 4 && done < ATTEMPTS; i++, done++) {
                            attack(attacker, done);
                        }
                    }
                }
                running.set(false);
                legitimate.join(15_000);
            }
            running.set(false);
            sampler.join(5_000);
            assertEquals(null, legitimateError.get());
            assertTrue(legitimateCommands.get() > 0);
            assertTrue(samples.get() > 50, "sampled the poll thread " + samples.get() + " times");
            assertEquals(null, caught.get(), "the poll-group thread was caught doing DH work");
        }
    }

    /** Negotiate ffdhe8192, read the Challenge (a DH key pair), Reply with any DH value (a key agreement). */
    private static void attack(ScriptedRdmaHost a, int tid) throws Exception {
        DhchapHostSession s = new DhchapHostSession(KEYS, RdmaTargetFixture.OTHER_HOST, RdmaTargetFixture.SUBNQN,
                tid, RANDOM);
        assertEquals(0, send(a, s.start()));
        SubmissionQueueEntry sqe = a.newSqe(0x7F);
        AuthenticationReceiveCommand.dhchap(CommandId.of(sqe.cid()), DataBlockDescriptor.inCapsule(0, 4096), 4096)
                .encode(sqe);
        a.keyed(sqe, 8192, 4096, false);
        assertEquals(0, a.execute().status());
        assertEquals(AuthMessage.TYPE_DHCHAP, AuthMessage.peekType(a.data.asSlice(8192, 4096)));
        byte[] garbage = new byte[DhchapDhGroup.FFDHE8192.valueLength()];
        RANDOM.nextBytes(garbage);
        garbage[0] = 0x40; // between 1 and p-1: the target must do the whole agreement to find the response wrong
        assertEquals(0, send(a, new DhchapReply(tid, new byte[32], false, 0, new byte[32], garbage)));
    }

    private static int send(ScriptedRdmaHost a, AuthMessage m) throws Exception {
        MemorySegment at = a.data.asSlice(4096, m.encodedSize());
        m.encode(at);
        SubmissionQueueEntry sqe = a.newSqe(0x7F);
        AuthenticationSendCommand.dhchap(CommandId.of(sqe.cid()), DataBlockDescriptor.inCapsule(0, m.encodedSize()),
                m.encodedSize()).encode(sqe);
        a.keyed(sqe, 4096, m.encodedSize(), false);
        return a.execute().status();
    }
}
