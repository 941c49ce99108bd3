package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

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
     * {@code maxIoBytes}, described by {@code params}, served by {@code handler} on the queues' threads.
     */
    @SuppressWarnings("MustBeClosedChecker") // the device owns the arena and closes it in close(); undo() on failure
    public static UblkDevice start(UblkControl control, int queues, int depth, int maxIoBytes, DeviceParams params,
            BlockRequestHandler handler) throws UblkException {
        if (depth < 1 || depth > DeviceInfo.MAX_QUEUE_DEPTH || queues < 1) {
            throw new IllegalArgumentException("queues " + queues + ", depth " + depth);
        }
        DeviceInfo info = control.addDevice(new DeviceInfo(queues, depth, 0, maxIoBytes, DeviceInfo.ANY_ID, 0,
                DeviceInfo.F_CMD_IOCTL_ENCODE));
        int id = info.devId();
        int charFd = -1;
        List<UblkQueue> started = new ArrayList<>();
        // the tags' buffers and the eventfd's 1: shared, since a handler's completion thread touches them
        Arena memory = Arena.ofShared();
        try {
            control.setParams(id, params);
            charFd = openWhenPresent("/dev/ublkc" + id);
            MemorySegment one = memory.allocateFrom(JAVA_LONG, 1L);
            long pageSize = UblkLinux.pageSize();
            int bufferBytes = info.maxIoBytes();
            for (int q = 0; q < queues; q++) {
                MemorySegment buffers = memory.allocate((long) depth * bufferBytes, pageSize);
                handler.attach(q, buffers, bufferBytes);
                UblkQueue queue = new UblkQueue(charFd, q, depth, bufferBytes, buffers, one, handler);
                Thread.ofPlatform().name("ublk-" + id + "-q" + q).start(queue);
                started.add(queue);
            }
            for (UblkQueue queue : started) {
                var _ = queue.fetched().get(QUEUE_WAIT_SECONDS, TimeUnit.SECONDS);
            }
            control.startDevice(id, ProcessHandle.current().pid());
            return new UblkDevice(control, info, charFd, started, memory);
        } catch (UblkException | RuntimeException e) {
            undo(control, id, charFd, started, memory);
            throw e;
        } catch (ExecutionException e) {
            undo(control, id, charFd, started, memory);
            if (e.getCause() instanceof UblkException u) {
                throw u;
            }
            throw new IllegalStateException("ublk queue failed", e.getCause());
        } catch (TimeoutException e) {
            undo(control, id, charFd, started, memory);
            throw new UblkException("waiting " + QUEUE_WAIT_SECONDS + " s for the queues' FETCH_REQs", 110);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            undo(control, id, charFd, started, memory);
            throw new UblkException("interrupted while starting ublk device " + id, 4);
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

    /** Requests served by all queues so far. */
    public long served() {
        long n = 0;
        for (UblkQueue q : queues) {
            n += q.served();
        }
        return n;
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
        boolean allEnded = true;
        for (UblkQueue q : queues) {
            q.stop();
        }
        for (UblkQueue q : queues) {
            try {
                q.ended().get(QUEUE_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                allEnded = false;
                LOG.log(System.Logger.Level.WARNING, "ublk device {0}: a queue did not end cleanly: {1}", id,
                        e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                allEnded = false;
                break;
            }
        }
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

    private static int openWhenPresent(String node) throws UblkException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(NODE_WAIT_MILLIS);
        while (!Files.exists(Path.of(node)) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10); // a device node appearing has no event a plain process can wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UblkException("waiting for " + node, 4);
            }
        }
        return UblkLinux.open(node);
    }
}
