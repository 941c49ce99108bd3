package io.nvmf4j.initiator.rdma;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.NvmfException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * Outcomes collected under the queue's lock and handed to the commands outside it (completions first, then
 * failures), so that no callback runs while the lock is held. The completion thread uses preallocated scratch
 * arrays (no allocation per I/O); other threads, rarely here, copy.
 */
final class CallbackQueue {

    private static final Logger LOG = System.getLogger(CallbackQueue.class.getName());

    /** A command that failed (timeout, connection lost, window not bound) and the error it gets. */
    private record Failure(NvmeRequest command, NvmfException error) {
    }

    private final String name;
    private final NvmeRequest[] done;
    private final int[] doneStatus;
    private final long[] doneResult;
    private int doneCount;
    private final ArrayDeque<Failure> failures = new ArrayDeque<>();

    private final NvmeRequest[] scratchCommands;
    private final int[] scratchStatus;
    private final long[] scratchResult;
    /** True while the completion thread runs handlers (read and written only by that thread). */
    private boolean inPollerCallbacks;

    CallbackQueue(String name, int capacity) {
        this.name = name;
        done = new NvmeRequest[capacity];
        doneStatus = new int[capacity];
        doneResult = new long[capacity];
        scratchCommands = new NvmeRequest[capacity];
        scratchStatus = new int[capacity];
        scratchResult = new long[capacity];
    }

    /** Under the lock: the controller answered {@code command}. */
    void completed(NvmeRequest command, int status, long result) {
        done[doneCount] = command;
        doneStatus[doneCount] = status;
        doneResult[doneCount] = result;
        doneCount++;
    }

    /** Under the lock: {@code command} fails with {@code error}. */
    void failLater(NvmeRequest command, NvmfException error) {
        failures.add(new Failure(command, error));
    }

    /**
     * Takes what was collected under {@code lock} and calls it back outside. {@code onPoller}: the caller is the
     * queue's completion thread; a handler re-entering from it returns at once (the poll loop runs these next).
     */
    void run(SpinLock lock, boolean onPoller) {
        if (onPoller && inPollerCallbacks) {
            return;
        }
        int n;
        NvmeRequest[] cmds;
        int[] statuses;
        long[] results;
        Failure[] failed = null;
        lock.lock();
        try {
            n = doneCount;
            if (n == 0 && failures.isEmpty()) {
                return;
            }
            cmds = onPoller ? scratchCommands : new NvmeRequest[n];
            statuses = onPoller ? scratchStatus : new int[n];
            results = onPoller ? scratchResult : new long[n];
            System.arraycopy(done, 0, cmds, 0, n);
            System.arraycopy(doneStatus, 0, statuses, 0, n);
            System.arraycopy(doneResult, 0, results, 0, n);
            Arrays.fill(done, 0, n, null);
            doneCount = 0;
            if (!failures.isEmpty()) {
                failed = failures.toArray(new Failure[0]);
                failures.clear();
            }
        } finally {
            lock.unlock();
        }
        inPollerCallbacks = onPoller;
        try {
            for (int i = 0; i < n; i++) {
                NvmeRequest c = cmds[i];
                cmds[i] = null;
                try {
                    c.completed(statuses[i], results[i]);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, name + ": completion callback threw", e);
                }
            }
            if (failed != null) {
                for (Failure f : failed) {
                    try {
                        f.command().failed(f.error());
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, name + ": failure callback threw", e);
                    }
                }
            }
        } finally {
            inPollerCallbacks = false;
        }
    }
}
