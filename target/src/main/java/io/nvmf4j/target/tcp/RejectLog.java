package io.nvmf4j.target.tcp;

import io.nvmf4j.target.rdma.RejectReason;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one WARNING line per refused or ended connection, rate-limited over the whole transport (a flood of hostile
 * connections must not become a flood of log lines): at most {@link #PER_SECOND} lines a second, then one line
 * saying how many were left out. Never a stack trace: a hostile peer is not a bug of ours. Called from the
 * listeners' threads (connections closed at accept) and the poll groups' threads (ended connections). The RDMA
 * transport keeps its own, under its own logger name.
 */
final class RejectLog {

    static final int PER_SECOND = 10;
    private static final System.Logger LOG = System.getLogger("io.nvmf4j.target.tcp.Rejected");

    private final AtomicLong windowStart = new AtomicLong();
    private final AtomicLong inWindow = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();

    void log(RejectReason reason, String peer, String detail) {
        long now = System.nanoTime();
        long start = windowStart.get();
        if (now - start > 1_000_000_000L && windowStart.compareAndSet(start, now)) {
            inWindow.set(0);
            long left = suppressed.getAndSet(0);
            if (left > 0) {
                LOG.log(Level.WARNING, "{0} more refused or ended connections not logged (rate limit)", left);
            }
        }
        if (inWindow.incrementAndGet() > PER_SECOND) {
            suppressed.incrementAndGet();
            return;
        }
        LOG.log(Level.WARNING, "{0}: {1} ({2})", peer, detail, reason.label());
    }
}
