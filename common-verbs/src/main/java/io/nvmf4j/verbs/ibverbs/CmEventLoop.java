package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;
import io.nvmf4j.verbs.ibverbs.ffi.rdma_event_channel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * One {@code rdma_event_channel} and the thread that reads it: waits in poll(2) on the channel's fd, takes each
 * event with {@code rdma_get_cm_event}, copies it, acknowledges it at once (so {@code rdma_destroy_id} never waits
 * for us) and hands the copy to the handler registered for its id; connection requests go to the handler of
 * their listening id.
 */
final class CmEventLoop implements AutoCloseable {
    private static final Logger LOG = System.getLogger(CmEventLoop.class.getName());
    private static final int POLL_MILLIS = 100;

    private final String deviceName;
    private final MemorySegment channel;
    private final int fd;
    private final Map<Long, Consumer<CmEvent>> handlers = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    CmEventLoop(String deviceName) throws VerbsException {
        this.deviceName = deviceName;
        this.channel = Native.rdmaCreateEventChannel();
        this.fd = rdma_event_channel.fd(channel.reinterpret(rdma_event_channel.sizeof()));
        this.thread = Thread.ofPlatform().daemon().name("ibverbs-cm-" + deviceName).start(this::run);
    }

    MemorySegment channel() {
        return channel;
    }

    void register(MemorySegment id, Consumer<CmEvent> handler) {
        handlers.put(id.address(), handler);
    }

    void unregister(MemorySegment id) {
        handlers.remove(id.address());
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(Native.POLLFD_SIZE, 4);
            MemorySegment state = Native.newCallState(arena);
            MemorySegment eventOut = arena.allocate(ValueLayout.ADDRESS);
            while (!closed) {
                try {
                    if (!Native.pollIn(pollfd, state, fd, POLL_MILLIS) || closed) {
                        continue;
                    }
                    MemorySegment event = Native.rdmaGetCmEvent(channel, eventOut);
                    CmEvent copy = CmEvent.copyOf(event);
                    ibverbs_h.rdma_ack_cm_event(event);
                    dispatch(copy);
                } catch (VerbsException | RuntimeException e) {
                    if (!closed) {
                        LOG.log(Level.WARNING, "rdma_cm event loop of " + deviceName + ": " + e.getMessage(), e);
                    }
                }
            }
        }
    }

    private void dispatch(CmEvent event) {
        long key = event.is(ibverbs_h.RDMA_CM_EVENT_CONNECT_REQUEST()) ? event.listenId() : event.id().address();
        Consumer<CmEvent> handler = handlers.get(key);
        if (handler == null) {
            if (event.is(ibverbs_h.RDMA_CM_EVENT_CONNECT_REQUEST())) {
                // the listener is gone: refuse and drop the new id
                ibverbs_h.rdma_reject(event.id(), MemorySegment.NULL, (byte) 0);
                ibverbs_h.rdma_destroy_id(event.id());
            }
            LOG.log(Level.DEBUG, () -> deviceName + ": " + event + " for an id nobody waits for");
            return;
        }
        try {
            handler.accept(event);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, deviceName + ": handling " + event + " failed", e);
        }
    }

    /** Stops the thread and destroys the channel; every id on it must be destroyed first. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ibverbs_h.rdma_destroy_event_channel(channel);
    }
}
