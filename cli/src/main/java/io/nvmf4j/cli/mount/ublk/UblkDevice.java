package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.nvmf4j.uring.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One ublk block device served by this process: ADD_DEV, SET_PARAMS, a {@link UblkQueue} thread per queue, and
 * START_DEV once every queue has fetched, after which {@code /dev/ublkb<id>} exists (ublksrv's
 * {@code ublksrv_ctrl_start_dev} sequence). {@link #close()} is STOP_DEV, the queue threads' end, and DEL_DEV, so
 * that no device outlives its server; a start that fails half way undoes what it did.
 */
public final class UblkDevice implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(UblkDevice.class.getName());
    /** How long the char device node may take to appear after ADD_DEV (devtmpfs, udev). */
    private static final long NODE_WAIT_MILLIS = 10_000;
    /** How long the queues may take to send their fetches, and to end after STOP_DEV. */
    private static final long QUEUE_WAIT_SECONDS = 30;

    private final UblkControl control;
    private final DeviceInfo info;
    private final int charFd;
    private final List<UblkQueue> queues;
    private final Arena memory;
    private boolean closed;

    private UblkDevice(UblkControl control, DeviceInfo info, int charFd, List<UblkQueue> queues, Arena memory) {
        this.control = control;
        this.info = info;
        this.charFd = charFd;
        this.queues = queues;
        this.memory = memory;
    }

    /**
     * Creates and starts a device of {@code queues} queues of {@code depth} tags, requests up to
     * {@code maxIoBytes}, described by {@code params}, served by {@code handler} on the queues' threads; it goes
     * when this process does.
     */
    public static UblkDevice start(UblkControl control, int queues, int depth, int maxIoBytes, DeviceParams params,
            BlockRequestHandler handler) throws UblkException {
        return start(control, new DeviceInfo(queues, depth, 0, maxIoBytes, DeviceInfo.ANY_ID, 0,
                DeviceInfo.F_CMD_IOCTL_ENCODE, 0), params, handler);
    }

    /**
     * Creates and starts a device as {@code wanted} describes it (queues, depth, largest request, {@code UBLK_F_*}
     * flags, the server's own flags): ADD_DEV, SET_PARAMS, the queues' fetches, START_DEV. With
     * {@link DeviceInfo#F_USER_RECOVERY} the device outlives this process: its I/O waits for {@link #recover}.
     */
    @SuppressWarnings("MustBeClosedChecker") // the device owns the arena and closes it in close(); undo() on failure
    public static UblkDevice start(UblkControl control, DeviceInfo wanted, DeviceParams params,
            BlockRequestHandler handler) throws UblkException {
        if (wanted.queueDepth() < 1 || wanted.queueDepth() > DeviceInfo.MAX_QUEUE_DEPTH || wanted.queues() < 1) {
            throw new IllegalArgumentException("queues " + wanted.queues() + ", depth " + wanted.queueDepth());
        }
        DeviceInfo info = control.addDevice(wanted);
        int id = info.devId();
        Serving serving = new Serving(id);
        try {
            control.setParams(id, params);
            serving.launch(info, handler);
            control.startDevice(id, ProcessHandle.current().pid());
            return new UblkDevice(control, info, serving.charFd, serving.queues, serving.memory);
        } catch (UblkException | RuntimeException e) {
            undo(control, id, serving.charFd, serving.queues, serving.memory);
            throw e;
        }
    }

    /**
     * Serves again a device whose server died ({@code UBLK_F_USER_RECOVERY}, state QUIESCED), as ublksrv's
     * {@code ublk recover} and SPDK's {@code ublk_recover_disk} do: START_USER_RECOVERY, the queues' fetches,
     * END_USER_RECOVERY; the requests held meanwhile (and, with {@code UBLK_F_USER_RECOVERY_REISSUE}, those the dead
     * server had taken and not answered) then reach {@code handler}. {@code info} is the device's GET_DEV_INFO. A
     * failure leaves the device QUIESCED, for another attempt or {@code ublk del}.
     */
    @SuppressWarnings("MustBeClosedChecker") // as start()
    public static UblkDevice recover(UblkControl control, DeviceInfo info, BlockRequestHandler handler)
            throws UblkException {
        int id = info.devId();
        if ((info.flags() & DeviceInfo.F_USER_RECOVERY) == 0) {
            throw new UblkException("recovering ublk device " + id + ", which was added without user recovery",
                    Errno.EINVAL);
        }
        Serving serving = new Serving(id);
        try {
            control.startUserRecovery(id);
            serving.launch(info, handler);
            control.endUserRecovery(id, ProcessHandle.current().pid());
            return new UblkDevice(control, info, serving.charFd, serving.queues, serving.memory);
        } catch (UblkException | RuntimeException e) {
            serving.end();
            throw e;
        }
    }

    /** The device's id: N of /dev/ublkbN. */
    public int id() {
        return info.devId();
    }

    /** {@code /dev/ublkb<id>}. */
    public Path blockDevice() {
        return Path.of("/dev/ublkb" + info.devId());
    }

    /** {@code nr_hw_queues}. */
    public int queueCount() {
        return info.queues();
    }

    /** {@code queue_depth}. */
    public int queueDepth() {
        return info.queueDepth();
    }

    /** Whether the kernel keeps the device, its I/O held, should this process die ({@code UBLK_F_USER_RECOVERY}). */
    public boolean recoverable() {
        return (info.flags() & DeviceInfo.F_USER_RECOVERY) != 0;
    }

    /** Requests served by all queues so far. */
    public long served() {
        long n = 0;
        for (UblkQueue q : queues) {
            n += q.served();
        }
        return n;
    }

    /** Each queue's {@link UblkQueue#counters()}, one line per queue. */
    public String counters() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < queues.size(); i++) {
            b.append(blockDevice()).append(" queue ").append(i).append(": ").append(queues.get(i).counters())
                    .append('\n');
        }
        return b.toString();
    }

    /** STOP_DEV, the queues' end, DEL_DEV. */
    @Override
    public void close() throws UblkException {
        if (closed) {
            return;
        }
        closed = true;
        UblkException first = null;
        try {
            control.stopDevice(info.devId());
        } catch (UblkException e) {
            first = e;
        }
        undo(control, info.devId(), charFd, queues, memory);
        if (first != null) {
            throw first;
        }
    }

    /**
     * Ends the queues, closes the char device, DEL_DEV, and frees the buffers once nothing can touch them: a handler
     * still holding a request (an initiator command that never ended) keeps the memory rather than see it freed.
     */
    private static void undo(UblkControl control, int id, int charFd, List<UblkQueue> queues, Arena memory) {
        boolean allEnded = endQueues(id, queues);
        if (charFd >= 0) {
            UblkLinux.close(charFd);
        }
        try {
            control.deleteDevice(id);
        } catch (UblkException e) {
            LOG.log(System.Logger.Level.WARNING, "ublk device {0}: {1}", id, e.getMessage());
        }
        if (allEnded && queues.stream().allMatch(UblkQueue::idle)) {
            memory.close();
        }
    }

    /** Stops the queue threads and waits for their end: whether all ended. */
    private static boolean endQueues(int id, List<UblkQueue> queues) {
        for (UblkQueue q : queues) {
            q.stop();
        }
        for (UblkQueue q : queues) {
            try {
                q.ended().get(QUEUE_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                LOG.log(System.Logger.Level.WARNING, "ublk device {0}: a queue did not end cleanly: {1}", id,
                        e.toString());
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The char device, the queue threads and their buffers of a device being started or recovered. */
    private static final class Serving {
        final int id;
        final List<UblkQueue> queues = new ArrayList<>();
        // the tags' buffers and the eventfd's 1: shared, since a handler's completion thread touches them
        final Arena memory = Arena.ofShared();
        int charFd = -1;

        Serving(int id) {
            this.id = id;
        }

        /** Opens {@code /dev/ublkc<id>}, starts a queue thread per queue, waits until all have fetched. */
        void launch(DeviceInfo info, BlockRequestHandler handler) throws UblkException {
            charFd = openWhenPresent("/dev/ublkc" + id);
            MemorySegment one = memory.allocateFrom(JAVA_LONG, 1L);
            long pageSize = UblkLinux.pageSize();
            int depth = info.queueDepth();
            int bufferBytes = info.maxIoBytes();
            for (int q = 0; q < info.queues(); q++) {
                MemorySegment buffers = memory.allocate((long) depth * bufferBytes, pageSize);
                UblkQueue queue = new UblkQueue(charFd, q, depth, bufferBytes, buffers, one, handler);
                try {
                    handler.attach(q, buffers, bufferBytes, queue);
                } catch (UblkException | RuntimeException e) {
                    queue.discard();
                    throw e;
                }
                Thread.ofPlatform().name("ublk-" + id + "-q" + q).start(queue);
                queues.add(queue);
            }
            try {
                for (UblkQueue queue : queues) {
                    var _ = queue.fetched().get(QUEUE_WAIT_SECONDS, TimeUnit.SECONDS);
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UblkException u) {
                    throw u;
                }
                throw new IllegalStateException("ublk queue failed", e.getCause());
            } catch (TimeoutException e) {
                throw new UblkException("waiting " + QUEUE_WAIT_SECONDS + " s for the queues' FETCH_REQs",
                        Errno.ETIMEDOUT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UblkException("interrupted while starting ublk device " + id, Errno.EINTR);
            }
        }

        /** Ends the queues and closes the char device without removing the device (a failed recovery). */
        void end() {
            if (endQueues(id, queues) && queues.stream().allMatch(UblkQueue::idle)) {
                memory.close();
            }
            if (charFd >= 0) {
                UblkLinux.close(charFd);
            }
        }
    }

    private static int openWhenPresent(String node) throws UblkException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(NODE_WAIT_MILLIS);
        while (!Files.exists(Path.of(node)) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10); // a device node appearing has no event a plain process can wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UblkException("waiting for " + node, Errno.EINTR);
            }
        }
        return UblkLinux.open(node);
    }
}
