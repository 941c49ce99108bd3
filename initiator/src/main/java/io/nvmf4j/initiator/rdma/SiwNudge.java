package io.nvmf4j.initiator.rdma;

import io.nvmf4j.verbs.QueuePair;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import java.util.concurrent.TimeUnit;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Linux siw (6.1, siw_accept()) puts its MPA reply on the wire before it hooks the socket's data_ready up to the
 * queue pair: an FPDU that arrives in between stays unread in the kernel socket until more data comes. Our Connect
 * capsule, sent as soon as the MPA reply is in, can land there (seen under QEMU TCG against nvmet-rdma: the kernel
 * never RDMA-Reads the Connect data). While a connection has not yet delivered a single response, a command silent
 * for {@link #AFTER_NANOS} is followed by a zero-length RDMA Write (siw's own RTR form: STag 1, TO 0, which siw and
 * RFC 5040 peers accept without an STag check and without a completion at the peer): new data makes the peer read
 * its socket again. At most one per second. Guarded by the queue's lock.
 */
final class SiwNudge {

    private static final Logger LOG = System.getLogger(SiwNudge.class.getName());
    static final long AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);
    /** Low 32 bits -1: never a command tag, no receive flag. */
    static final long WR_ID = 0xFFFF_FFFFL;

    private final String name;
    private final SendWorkRequest write = new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).signaled(true)
            .wrId(WR_ID).rkey(1).remoteAddress(0);
    private boolean responseSeen;
    private long nextNanos;
    private int sent;

    SiwNudge(String name) {
        this.name = name;
    }

    /** A new connection: nothing heard yet. */
    void reset() {
        responseSeen = false;
        nextNanos = 0;
    }

    void responseSeen() {
        responseSeen = true;
    }

    int sent() {
        return sent;
    }

    /** {@code oldestStart}: start of the oldest outstanding command, {@code Long.MAX_VALUE} for none. */
    void maybeNudge(long now, long oldestStart, QueuePair qp) {
        if (responseSeen || now - nextNanos < 0 || oldestStart == Long.MAX_VALUE || now - oldestStart < AFTER_NANOS) {
            return;
        }
        nextNanos = now + AFTER_NANOS;
        write.sgList().count(0);
        try {
            qp.postSend(write);
        } catch (VerbsException e) {
            LOG.log(Level.DEBUG, () -> name + ": zero-length RDMA Write not posted: " + e.getMessage());
            return;
        }
        sent++;
        long silentMillis = TimeUnit.NANOSECONDS.toMillis(now - oldestStart);
        LOG.log(Level.DEBUG, () -> name + ": no response " + silentMillis + " ms after the first command; sent a zero-length "
                + "RDMA Write to make the peer read its socket");
    }
}
