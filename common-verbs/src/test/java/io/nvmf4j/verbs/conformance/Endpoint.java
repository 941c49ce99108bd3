package io.nvmf4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One side of a loopback test: a protection domain and one completion queue that serves both its send and
 * receive queues, plus helpers to register guarded memory and to wait for completions.
 */
public final class Endpoint implements AutoCloseable {
    private final String name;
    private final Arena arena;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final WorkCompletion[] batch = new WorkCompletion[16];
    private final List<WorkCompletion> pending = new ArrayList<>();

    Endpoint(String name, RdmaDevice device, Arena arena, int cqEntries) throws VerbsException {
        this.name = name;
        this.arena = arena;
        this.pd = device.allocatePd();
        this.cq = device.createCompletionQueue(cqEntries);
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public CompletionQueue cq() {
        return cq;
    }

    /** Registers {@code size} bytes with guard bytes around them. */
    public GuardedRegion register(long size, AccessFlag... access) throws VerbsException {
        return GuardedRegion.register(arena, pd, size,
                access.length == 0 ? EnumSet.noneOf(AccessFlag.class) : EnumSet.of(access[0], access));
    }

    /** Registers with every access right. */
    public GuardedRegion registerOpen(long size) throws VerbsException {
        return register(size, AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
    }

    /** The next completion (copied), failing if none arrives within {@code timeout}. */
    public WorkCompletion awaitCompletion(Duration timeout) throws InterruptedException {
        return awaitCompletions(1, timeout).getFirst();
    }

    /** The next {@code count} completions in CQ order (copied), failing if they do not all arrive in time. */
    public List<WorkCompletion> awaitCompletions(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<WorkCompletion> result = new ArrayList<>(count);
        while (result.size() < count && !pending.isEmpty()) {
            result.add(pending.removeFirst());
        }
        while (result.size() < count) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                fail(name + ": " + result.size() + " of " + count + " completions within " + timeout + ": " + result);
            }
            int n = cq.await(batch, remaining, TimeUnit.NANOSECONDS);
            for (int i = 0; i < n; i++) {
                WorkCompletion copy = new WorkCompletion().copyFrom(batch[i]);
                if (result.size() < count) {
                    result.add(copy);
                } else {
                    pending.add(copy);
                }
            }
        }
        return result;
    }

    /** Fails if any completion shows up within {@code quiet}. */
    public void assertNoCompletion(Duration quiet) throws InterruptedException {
        if (!pending.isEmpty()) {
            fail(name + ": unexpected completion " + pending.getFirst());
        }
        int n = cq.await(batch, quiet.toNanos(), TimeUnit.NANOSECONDS);
        assertEquals(0, n, () -> name + ": unexpected completion " + batch[0]);
    }

    @Override
    public void close() {
        cq.close();
        pd.close();
    }

    @Override
    public String toString() {
        return name;
    }
}
