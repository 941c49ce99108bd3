package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_async_event;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_context;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_qp;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * What one {@code ibv_context} reports outside completions, shared by every {@link IbverbsDevice} object open on it:
 * librdmacm opens each device once per process ({@code rdma_get_devices} hands every caller the same contexts), so
 * two opens of {@code siw0} are two Java objects over one context, and a queue pair made from either may be found
 * by its number, and a CQ by its address, whichever object asks.
 *
 * <p>The context's asynchronous events ({@code ibv_get_async_event}, read by one daemon thread per context while
 * any device object is open) are where a device reports what no completion carries: a CQ that overran
 * ({@code IBV_EVENT_CQ_ERR}: rxe_cq_post() and siw_sqe_complete()/siw_rqe_complete() raise it when the ring is full
 * and drop the completion) and a queue pair that broke without a completion to say so ({@code IBV_EVENT_QP_FATAL},
 * {@code QP_REQ_ERR}, {@code QP_ACCESS_ERR}: e.g. siw on a Terminate it received). Like Linux ULPs'
 * {@code event_handler} of {@code ib_create_qp} (nvme_rdma_qp_event) the connection is ended on such an event.
 */
final class DeviceEvents {
    private static final Logger LOG = System.getLogger(DeviceEvents.class.getName());
    private static final int POLL_MILLIS = 100;
    private static final Map<Long, DeviceEvents> BY_CONTEXT = new HashMap<>();

    private final MemorySegment context;
    private final String deviceName;
    private final int fd;
    private final Map<Integer, IbverbsConnection> connectionsByQp = new ConcurrentHashMap<>();
    private final Map<Long, IbverbsCompletionQueue> cqs = new ConcurrentHashMap<>();
    private int users;
    private Thread thread;
    private volatile boolean stopped;

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private DeviceEvents(MemorySegment context, String deviceName) {
        this.context = context;
        this.deviceName = deviceName;
        this.fd = ibv_context.async_fd(context.reinterpret(ibv_context.sizeof()));
    }

    /** The events of {@code context}, their thread started for the first user. */
    static DeviceEvents acquire(MemorySegment context, String deviceName) {
        synchronized (BY_CONTEXT) {
            DeviceEvents events = BY_CONTEXT.computeIfAbsent(context.address(), a -> new DeviceEvents(context,
                    deviceName));
            if (events.users++ == 0) {
                events.stopped = false;
                events.thread = Thread.ofPlatform().daemon().name("ibverbs-async-" + deviceName).start(events::run);
            }
            return events;
        }
    }

    /** One user fewer; the last one stops the thread (and waits for it, so no event is read after a close). */
    void release() {
        Thread toJoin = null;
        synchronized (BY_CONTEXT) {
            if (--users == 0) {
                stopped = true;
                toJoin = thread;
                BY_CONTEXT.remove(context.address());
            }
        }
        if (toJoin != null && toJoin != Thread.currentThread()) {
            try {
                toJoin.join(2 * POLL_MILLIS + 1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    Map<Integer, IbverbsConnection> connectionsByQp() {
        return connectionsByQp;
    }

    void addCq(IbverbsCompletionQueue cq) {
        cqs.put(cq.cq().address(), cq);
    }

    void removeCq(IbverbsCompletionQueue cq) {
        cqs.remove(cq.cq().address(), cq);
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(Native.POLLFD_SIZE, 4);
            MemorySegment state = Native.newCallState(arena);
            MemorySegment event = arena.allocate(ibv_async_event.layout());
            while (!stopped) {
                try {
                    if (!Native.pollIn(pollfd, state, fd, POLL_MILLIS) || stopped) {
                        continue;
                    }
                    // the fd is readable: ibv_get_async_event does not block now
                    if (ibverbs_h.ibv_get_async_event(context, event) != 0) {
                        continue;
                    }
                    try {
                        dispatch(event);
                    } finally {
                        ibverbs_h.ibv_ack_async_event(event);
                    }
                } catch (VerbsException | RuntimeException e) {
                    if (!stopped) {
                        LOG.log(Level.WARNING, "async events of " + deviceName + ": " + e.getMessage(), e);
                    }
                }
            }
        }
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private void dispatch(MemorySegment event) {
        int type = ibv_async_event.event_type(event);
        MemorySegment element = ibv_async_event.element(event);
        String name = ibverbs_h.ibv_event_type_str(type).reinterpret(64).getString(0);
        if (type == ibverbs_h.IBV_EVENT_CQ_ERR()) {
            long cqAddress = ibv_async_event.element.cq(element).address();
            IbverbsCompletionQueue cq = cqs.get(cqAddress);
            LOG.log(Level.DEBUG, () -> deviceName + ": " + name + " on CQ 0x" + Long.toHexString(cqAddress)
                    + (cq == null ? " (not one of ours)" : ""));
            if (cq != null) {
                cq.markOverflowed();
            }
        } else if (type == ibverbs_h.IBV_EVENT_QP_FATAL() || type == ibverbs_h.IBV_EVENT_QP_REQ_ERR()
                || type == ibverbs_h.IBV_EVENT_QP_ACCESS_ERR()) {
            MemorySegment qp = ibv_async_event.element.qp(element).reinterpret(ibv_qp.sizeof());
            int number = ibv_qp.qp_num(qp);
            IbverbsConnection connection = connectionsByQp.get(number);
            LOG.log(Level.DEBUG, () -> deviceName + ": " + name + " on QP " + number);
            if (connection != null) {
                connection.onQueuePairError(name);
            }
        } else if (type == ibverbs_h.IBV_EVENT_DEVICE_FATAL()) {
            LOG.log(Level.WARNING, () -> deviceName + ": " + name);
            connectionsByQp.values().forEach(c -> c.onQueuePairError(name));
        } else {
            LOG.log(Level.DEBUG, () -> deviceName + ": async event " + name);
        }
    }
}
