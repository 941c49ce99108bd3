package io.nvmf4j.cli.mount.ublk;

import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.IoCompletionHandler;
import io.nvmf4j.initiator.IoRequest;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.NvmfStatusException;
import io.nvmf4j.initiator.QueuePolling;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.uring.Errno;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * A remote namespace behind a ublk device: each ublk queue's tag buffers are registered with the controller once
 * (the target's RDMA Read and Write go straight into them: no copy), ublk queue q sends on NVMe I/O queue
 * {@code q mod ioQueueCount}, and each tag has its own reusable {@link IoRequest}, so a read or write costs no
 * allocation; the ublk queue's thread polls the NVMe queue itself ({@link #poll}, {@link #beforeSleep}), so a
 * completion ends its ublk request on that thread. Flush goes as a Flush (when the controller reports a volatile
 * write cache), FUA as FUA, discard as a Deallocate and write-zeroes as Write Zeroes (deallocating unless
 * REQ_NOUNMAP), as Linux's nvme driver maps them ({@code nvme_setup_cmd}); errors as its
 * {@code nvme_error_status()} would, through the errno ublk takes.
 */
public final class NamespaceHandler implements BlockRequestHandler {

    /** How long after its last request a ublk queue's thread keeps the NVMe queue while it sleeps. */
    static final long KEEP_IDLE_NANOS = 1_000_000_000L;

    /**
     * {@code nvmf4j.ublk.watchSocket} (default true): a sleeping queue thread waits on the connection's socket
     * itself ({@link QueuePolling#wakeOnCompletionWatching}); false has the transport's thread read it and wake the
     * queue thread, for comparing the two.
     */
    static final boolean WATCH_SOCKET =
            Boolean.parseBoolean(System.getProperty("nvmf4j.ublk.watchSocket", "true"));

    private final NvmeController controller;
    private final Namespace namespace;
    private final int blockShift;
    private final PerQueue[] queues;

    /** A handler for {@code ublkQueues} queues over {@code namespace} of {@code controller}. */
    public NamespaceHandler(NvmeController controller, Namespace namespace, int ublkQueues) {
        long blockSize = namespace.blockSize();
        if (Long.bitCount(blockSize) != 1 || blockSize < 512) {
            throw new IllegalArgumentException("namespace " + namespace.nsid() + " has " + blockSize
                    + "-byte blocks; a block device needs a power of two of at least 512");
        }
        this.controller = controller;
        this.namespace = namespace;
        this.blockShift = Long.numberOfTrailingZeros(blockSize);
        this.queues = new PerQueue[ublkQueues];
    }

    /**
     * The ublk parameters for this namespace: its block size as both logical and physical size, its capacity, the
     * largest request the controller takes (MDTS) within {@code maxIoBytes}, a volatile cache and FUA when the
     * controller has a volatile write cache (VWC), discard and write zeroes when ONCS says the commands exist.
     */
    public DeviceParams params(int maxIoBytes) {
        IdentifyController id = controller.identify();
        long largest = Math.min(maxIoBytes, (long) namespace.maxBlocksPerRequest() << blockShift);
        int attributes = (id.vwc() & IdentifyController.VWC_PRESENT) != 0
                ? DeviceParams.ATTR_VOLATILE_CACHE | DeviceParams.ATTR_FUA : 0;
        DeviceParams.Discard discard = null;
        boolean dsm = (id.oncs() & IdentifyController.ONCS_DSM) != 0;
        boolean zeroes = (id.oncs() & IdentifyController.ONCS_WRITE_ZEROES) != 0;
        if (dsm || zeroes) {
            int blockSectors = 1 << (blockShift - 9);
            // Write Zeroes' NLB is 16 bits (65,536 blocks); a Deallocate range's is 32 bits, kept to 2^22 sectors
            discard = new DeviceParams.Discard(0, 1 << blockShift, dsm ? 1 << 22 : 0,
                    zeroes ? (int) Math.min(65536L * blockSectors, 1 << 22) : 0, 1);
        }
        return new DeviceParams(attributes, blockShift, blockShift, blockShift, blockShift,
                (int) (largest >> 9), namespace.capacityBytes() >> 9, discard);
    }

    @Override
    public void attach(int queueId, MemorySegment buffers, int bufferBytes, RequestCompletion done)
            throws UblkException {
        try {
            IoBuffer registered = controller.registerBuffer(buffers);
            int depth = (int) (buffers.byteSize() / bufferBytes);
            int nvmeQueue = queueId % controller.ioQueueCount();
            queues[queueId] = new PerQueue(namespace.onQueue(nvmeQueue), controller.queuePolling(nvmeQueue),
                    registered, bufferBytes, depth, done);
        } catch (NvmfException e) {
            throw new UblkException("registering queue " + queueId + "'s buffers for RDMA (" + e.getMessage() + ")",
                    Errno.EIO);
        }
    }

    /**
     * Polls the queue's NVMe completions on the ublk queue's thread, asking for them first: the completion then
     * ends its ublk request right there (a commit on the next round), with no hand-off from the initiator's
     * completion thread, which parks while the ublk thread holds the queue.
     */
    @Override
    public int poll(int queueId) {
        PerQueue q = queues[queueId];
        if (q.armed) {
            q.armed = false; // awake: whatever woke it, this thread polls now
            q.polling.cancelWake();
        }
        QueuePolling polling = q.polling;
        int n = polling.poll();
        if (n < 0) {
            q.unclaimed = true;
            var _ = polling.claim();
            return 0;
        }
        return n;
    }

    /**
     * The requests one reap of the ublk ring started go to the target together: their command capsules were held
     * ({@link QueuePolling#holdSends}) as {@link #start} submitted them (docs/ARCHITECTURE.md, "Held sends").
     */
    @Override
    public void started(int queueId) {
        PerQueue q = queues[queueId];
        if (q.holding) {
            q.holding = false;
            q.polling.flushSends();
        }
    }

    /**
     * While the queue's commands are out, the ublk thread keeps the NVMe queue as it sleeps, woken through its
     * eventfd by the transport thread that takes the answer in ({@link QueuePolling#wakeOnCompletion}): one
     * thread polls the queue for the device's life, as an SPDK reactor polls its ublk rings and its qpairs, and
     * the initiator's completion thread stays parked (docs/ARCHITECTURE.md, "One poller per ublk queue"); so for
     * {@link #KEEP_IDLE_NANOS} after the last request too. When idle longer, or the transport cannot wake it, the
     * completion thread polls again while the ublk queue sleeps (other users of the queue too).
     */
    @Override
    public long beforeSleep(int queueId, boolean requestsHeld) {
        started(queueId); // nothing stays held across a sleep
        PerQueue q = queues[queueId];
        if (q.armed) {
            q.armed = false;
            q.polling.cancelWake();
        }
        long now = System.nanoTime();
        if (requestsHeld) {
            q.lastHeldNanos = now;
        }
        // kept a while after the last request too: a QD1 stream's next request comes as the last one ends, and a
        // claim given back then is asked for again at once (granted at the completion thread's next poll)
        boolean keep = requestsHeld || now - q.lastHeldNanos < KEEP_IDLE_NANOS;
        // a completion already in (the send of a capsule the flush above wrote) refuses the arming: take it, and
        // arm again once, rather than hand the queue to the completion thread for so little
        // the first sleep after the queue was (re)claimed does not watch: a new connection's socket may have the
        // number of the old one, whose watch the ublk ring still holds; watching nothing cancels that one first
        boolean watch = WATCH_SOCKET && !q.unclaimed;
        q.unclaimed = false;
        for (int attempt = 0; keep && attempt < 2; attempt++) {
            long bound = watch ? q.polling.wakeOnCompletionWatching(q.wake) : q.polling.wakeOnCompletion(q.wake);
            if (bound > 0) {
                q.armed = true;
                return bound;
            }
            if (q.polling.poll() <= 0) {
                break; // not this thread's queue, or a transport that cannot call back
            }
        }
        q.polling.release();
        return 0;
    }

    /** The connection's socket, when the last {@link #beforeSleep} left it to this thread to watch; else -1. */
    @Override
    public int waitDescriptor(int queueId) {
        PerQueue q = queues[queueId];
        return q.armed ? q.polling.waitDescriptor() : -1;
    }

    /** Nothing held, nothing armed (no wake-up may write the queue's closed eventfd), the queue given back. */
    @Override
    public void stopped(int queueId) {
        started(queueId);
        PerQueue q = queues[queueId];
        q.armed = false;
        q.polling.release(); // cancels the wake too
    }

    /** The connection's spin budget: the queue thread polls for answers as the initiator's poller does. */
    @Override
    public long spinNanos() {
        return controller.options().spinBudget().toNanos();
    }

    @Override
    public void start(int queueId, int tag, int op, int flags, long offset, long length, MemorySegment buffer,
            RequestCompletion done) {
        PerQueue q = queues[queueId];
        long mask = (1L << blockShift) - 1;
        if ((offset & mask) != 0 || (length & mask) != 0) {
            done.complete(tag, -Errno.EINVAL); // the logical block size we gave makes this impossible
            return;
        }
        long slba = offset >> blockShift;
        int blocks = (int) (length >> blockShift);
        IoRequest r = q.requests[tag];
        q.lengths[tag] = (int) Math.min(length, Integer.MAX_VALUE);
        if (!q.holding) {
            q.holding = true; // until started(): this reap's other requests go in the same write
            q.polling.holdSends();
        }
        try {
            switch (op) {
                case IoDescriptor.OP_READ -> q.pinned.submit(r.read(slba, blocks, q.buffer, (long) tag * q.bufferBytes));
                case IoDescriptor.OP_WRITE -> q.pinned.submit(r.write(slba, blocks, q.buffer,
                        (long) tag * q.bufferBytes).fua((flags & IoDescriptor.F_FUA) != 0));
                case IoDescriptor.OP_FLUSH -> {
                    q.lengths[tag] = 0;
                    q.pinned.submit(r.flush());
                }
                // on this queue's NVMe queue: the one this thread polls
                case IoDescriptor.OP_DISCARD -> whenDone(q.pinned.deallocateAsync(slba, blocks), done, tag);
                case IoDescriptor.OP_WRITE_ZEROES -> whenDone(q.pinned.writeZeroesAsync(slba, blocks,
                        (flags & IoDescriptor.F_NOUNMAP) == 0), done, tag);
                default -> done.complete(tag, -Errno.EOPNOTSUPP);
            }
        } catch (RuntimeException e) {
            // refused before it was sent (larger than MDTS, outside the buffer): the driver sees an I/O error
            done.complete(tag, -Errno.EIO);
        }
    }

    private static void whenDone(CompletableFuture<Void> f, RequestCompletion done, int tag) {
        f.whenComplete((v, e) -> done.complete(tag, e == null ? 0
                : -errno(e instanceof java.util.concurrent.CompletionException c ? c.getCause() : e)));
    }

    /** The errno Linux's nvme_error_status() ends up as for this failure (BLK_STS_* through blk_status_to_errno). */
    static int errno(Throwable error) {
        if (error instanceof NvmfStatusException s) {
            StatusCode code = s.statusCode().orElse(null);
            if (code == null) {
                return Errno.EIO;
            }
            return switch (code) {
                case LBA_RANGE -> Errno.EREMOTEIO;                     // BLK_STS_TARGET
                case RESERVATION_CONFLICT -> Errno.EBADE;              // BLK_STS_RESV_CONFLICT
                case INVALID_OPCODE, INVALID_FIELD -> Errno.EOPNOTSUPP; // BLK_STS_NOTSUPP
                case CAP_EXCEEDED -> Errno.ENOSPC;                     // BLK_STS_NOSPC
                case READ_ERROR, WRITE_FAULT -> Errno.ENODATA;         // BLK_STS_MEDIUM
                default -> Errno.EIO;
            };
        }
        return Errno.EIO;
    }

    /** One ublk queue's side: the NVMe queue it sends on, its registered buffers, a request per tag. */
    private static final class PerQueue {
        final Namespace pinned;
        final QueuePolling polling;
        final IoBuffer buffer;
        final int bufferBytes;
        final IoRequest[] requests;
        final int[] lengths;
        final RequestCompletion done;
        /** Whether this queue's thread holds its sends (between the first start of a reap and started()). */
        boolean holding;
        /** What the transport runs when an answer comes while the ublk thread sleeps: its eventfd's write. */
        final Runnable wake;
        /** Whether {@link #wake} is armed (between beforeSleep and the next poll). */
        boolean armed;
        /** The queue's poll found it not this thread's (not yet granted, or a reconnect): see beforeSleep. */
        boolean unclaimed;
        /** When the thread last went to sleep holding requests (System.nanoTime()). */
        long lastHeldNanos;

        PerQueue(Namespace pinned, QueuePolling polling, IoBuffer buffer, int bufferBytes, int depth,
                RequestCompletion done) {
            this.pinned = pinned;
            this.polling = polling;
            this.done = done;
            this.wake = done::wake;
            this.buffer = buffer;
            this.bufferBytes = bufferBytes;
            this.requests = new IoRequest[depth];
            this.lengths = new int[depth];
            IoCompletionHandler ended = (request, error) -> {
                int tag = (int) request.userData();
                done.complete(tag, error == null ? lengths[tag] : -errno(error));
            };
            for (int t = 0; t < depth; t++) {
                requests[t] = new IoRequest(ended).userData(t);
            }
        }
    }
}
