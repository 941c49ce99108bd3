package io.nvmf4j.target.poll;

/**
 * When a poll group's loop (the RDMA transport's, over its completion queue, and the TCP transport's, over its
 * sockets) stops busy-polling and blocks: it spins for the spin budget (the transport options' {@code spinBudget})
 * after its last work, since a thread woken from a blocking wait answers later than one that polls, and then blocks
 * in its wait (the completion queue's, the selector's). While backend operations run, it spins longer and then
 * blocks only in short waits, because neither the ring nor the workers can wake a blocked completion-queue wait or
 * selector. Public for the two transport packages only: this package is not exported. Runs on the poll group's
 * thread only; no allocation.
 */
public final class SpinBudget {

    /**
     * How long one blocking wait of the RDMA poll group lasts when idle. Completions unpark the thread and a task
     * interrupts it, so this only paces the check for overdue teardowns (5 s deadlines): every wake-up of an idle
     * group costs the completion queue's own spin, so an idle daemon wakes each group only twice a second.
     */
    public static final long BLOCK_MILLIS = 500;
    /**
     * While backend operations run and nothing else happens, the loop spins this long after its last work (a disk
     * answers well within it), then blocks in short waits of {@link #BACKEND_WAIT_MILLIS}: a slow or hung backend
     * costs no core, and neither the ring nor the workers can wake a blocked completion-queue wait.
     */
    private static final long BACKEND_SPIN_NANOS = 1_000_000L;
    public static final long BACKEND_WAIT_MILLIS = 1;
    /** After this long without work while backend operations run, each empty round yields the core. */
    private static final long BACKEND_YIELD_NANOS = 10_000L;
    /**
     * The most one empty round adds to the time spun: an empty round is far shorter, so a longer one means this
     * thread was off the core (preempted by another task on a loaded machine), which is no spinning. Were it counted,
     * a group preempted for a scheduler slice would find its budget spent and block, and a disk completion (which
     * cannot wake a blocked group) would then wait out a whole backend wait on top.
     */
    private static final long MAX_ROUND_NANOS = 20_000L;

    private final long spinNanos;
    /**
     * Whether an empty round while backend operations run yields the core: only when they run on this process's
     * worker threads ({@link io.nvmf4j.target.backend.BackendIoMode#THREADS}). A ring's I/O needs no thread of ours,
     * and a yield hands the core to any runnable task for its whole slice, which a reader at queue depth 1 waits out
     * on a loaded machine.
     */
    private final boolean yieldsToWorkers;
    /** Nanoseconds spun in empty rounds since the last work; {@link #lastRound} is when the previous round ended. */
    private long spun;
    private long lastRound;

    public SpinBudget(long spinNanos, boolean yieldsToWorkers, long now) {
        this.spinNanos = spinNanos;
        this.yieldsToWorkers = yieldsToWorkers;
        this.lastRound = now;
    }

    /** The loop had work at {@code now}: the budget starts again. */
    public void worked(long now) {
        lastRound = now;
        spun = 0;
    }

    /**
     * An empty round ended at {@code now}: true (after a pause for the core) while the budget lasts and the loop polls
     * again; false when it is spent and the loop blocks.
     */
    @SuppressWarnings("ThreadPriorityCheck") // a bounded back-off after spinning, not a priority: lets a descheduled peer run on a small host
    public boolean spin(long now, boolean backendBusy) {
        spun += Math.min(now - lastRound, MAX_ROUND_NANOS);
        lastRound = now;
        if (spun >= (backendBusy ? Math.max(spinNanos, BACKEND_SPIN_NANOS) : spinNanos)) {
            return false;
        }
        if (backendBusy && yieldsToWorkers && spun > BACKEND_YIELD_NANOS) {
            // the work we wait for is a worker thread of this process, which may share this core
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        return true;
    }

    /** How long the RDMA poll group's blocking wait lasts. */
    public static long blockMillis(boolean backendBusy) {
        return backendBusy ? BACKEND_WAIT_MILLIS : BLOCK_MILLIS;
    }
}
