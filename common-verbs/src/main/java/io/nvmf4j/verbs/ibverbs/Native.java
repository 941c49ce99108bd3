package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.uring.Errno;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Downcalls that can fail, built from the generated symbols with {@code Linker.Option.captureCallState("errno")}
 * (the generated wrappers do not capture errno, and by the time Java code runs after a downcall the JVM may have
 * overwritten it). Each wrapper throws a {@link VerbsException} naming the call and the errno. Only control-path
 * calls live here; the data path goes through {@link ContextOps}.
 */
final class Native {
    static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle IBV_GET_DEVICE_LIST =
            capturing(ibverbs_h.ibv_get_device_list$address(), ibverbs_h.ibv_get_device_list$descriptor());
    private static final MethodHandle RDMA_GET_DEVICES =
            capturing(ibverbs_h.rdma_get_devices$address(), ibverbs_h.rdma_get_devices$descriptor());
    private static final MethodHandle IBV_ALLOC_PD =
            capturing(ibverbs_h.ibv_alloc_pd$address(), ibverbs_h.ibv_alloc_pd$descriptor());
    private static final MethodHandle IBV_REG_MR =
            capturing(ibverbs_h.ibv_reg_mr$address(), ibverbs_h.ibv_reg_mr$descriptor());
    private static final MethodHandle IBV_CREATE_COMP_CHANNEL =
            capturing(ibverbs_h.ibv_create_comp_channel$address(), ibverbs_h.ibv_create_comp_channel$descriptor());
    private static final MethodHandle IBV_CREATE_CQ =
            capturing(ibverbs_h.ibv_create_cq$address(), ibverbs_h.ibv_create_cq$descriptor());
    private static final MethodHandle IBV_GET_CQ_EVENT =
            capturing(ibverbs_h.ibv_get_cq_event$address(), ibverbs_h.ibv_get_cq_event$descriptor());
    private static final MethodHandle RDMA_CREATE_EVENT_CHANNEL = capturing(
            ibverbs_h.rdma_create_event_channel$address(), ibverbs_h.rdma_create_event_channel$descriptor());
    private static final MethodHandle RDMA_CREATE_ID =
            capturing(ibverbs_h.rdma_create_id$address(), ibverbs_h.rdma_create_id$descriptor());
    private static final MethodHandle RDMA_BIND_ADDR =
            capturing(ibverbs_h.rdma_bind_addr$address(), ibverbs_h.rdma_bind_addr$descriptor());
    private static final MethodHandle RDMA_LISTEN =
            capturing(ibverbs_h.rdma_listen$address(), ibverbs_h.rdma_listen$descriptor());
    private static final MethodHandle RDMA_RESOLVE_ADDR =
            capturing(ibverbs_h.rdma_resolve_addr$address(), ibverbs_h.rdma_resolve_addr$descriptor());
    private static final MethodHandle RDMA_RESOLVE_ROUTE =
            capturing(ibverbs_h.rdma_resolve_route$address(), ibverbs_h.rdma_resolve_route$descriptor());
    private static final MethodHandle RDMA_CREATE_QP =
            capturing(ibverbs_h.rdma_create_qp$address(), ibverbs_h.rdma_create_qp$descriptor());
    private static final MethodHandle RDMA_CONNECT =
            capturing(ibverbs_h.rdma_connect$address(), ibverbs_h.rdma_connect$descriptor());
    private static final MethodHandle RDMA_ACCEPT =
            capturing(ibverbs_h.rdma_accept$address(), ibverbs_h.rdma_accept$descriptor());
    private static final MethodHandle RDMA_REJECT =
            capturing(ibverbs_h.rdma_reject$address(), ibverbs_h.rdma_reject$descriptor());
    private static final MethodHandle RDMA_DISCONNECT =
            capturing(ibverbs_h.rdma_disconnect$address(), ibverbs_h.rdma_disconnect$descriptor());
    private static final MethodHandle RDMA_MIGRATE_ID =
            capturing(ibverbs_h.rdma_migrate_id$address(), ibverbs_h.rdma_migrate_id$descriptor());
    private static final MethodHandle RDMA_GET_CM_EVENT =
            capturing(ibverbs_h.rdma_get_cm_event$address(), ibverbs_h.rdma_get_cm_event$descriptor());
    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)} from libc. */
    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static final MethodHandle POLL = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("poll"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT),
            CAPTURE_ERRNO);

    /** {@code struct pollfd { int fd; short events; short revents; }}. */
    static final long POLLFD_SIZE = 8;
    static final short POLLIN = 0x1;

    private Native() {
    }

    @SuppressWarnings("restricted") // FFM: binds a C function; the module is granted native access
    private static MethodHandle capturing(MemorySegment address, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(address, descriptor, CAPTURE_ERRNO);
    }

    /** Call state for one call (control path only: one small allocation per call is fine there). */
    private static MemorySegment state(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Wraps a Throwable thrown by invokeExact (downcalls throw nothing checked; this is for the compiler). */
    private static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** A returned pointer, or the call's errno as an exception when it is NULL. */
    private static MemorySegment pointerOrThrow(String call, MemorySegment result, MemorySegment state)
            throws VerbsException {
        if (result.equals(MemorySegment.NULL)) {
            throw VerbsErrors.exception(call, errno(state));
        }
        return result;
    }

    /** A returned int that is 0 on success and -1 with errno on failure (the rdma_cm convention). */
    private static void zeroOrThrow(String call, int result, MemorySegment state) throws VerbsException {
        if (result != 0) {
            throw VerbsErrors.exception(call, result > 0 ? result : errno(state));
        }
    }

    /** A failed list call: its errno, or 0 when the list merely came back empty. */
    record DeviceList(MemorySegment list, int count, int errno) {
    }

    /** {@code ibv_get_device_list(&num)}: the list (free with ibv_free_device_list) or NULL with errno. */
    static DeviceList ibvGetDeviceList() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment num = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) IBV_GET_DEVICE_LIST.invokeExact(state, num);
            return new DeviceList(list, list.equals(MemorySegment.NULL) ? 0 : num.get(ValueLayout.JAVA_INT, 0),
                    list.equals(MemorySegment.NULL) ? errno(state) : 0);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code rdma_get_devices(&num)}: the rdma_cm's own device contexts (free with rdma_free_devices). */
    static DeviceList rdmaGetDevices() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment num = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) RDMA_GET_DEVICES.invokeExact(state, num);
            return new DeviceList(list, list.equals(MemorySegment.NULL) ? 0 : num.get(ValueLayout.JAVA_INT, 0),
                    list.equals(MemorySegment.NULL) ? errno(state) : 0);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static MemorySegment ibvAllocPd(MemorySegment context) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment pd = (MemorySegment) IBV_ALLOC_PD.invokeExact(state, context);
            return pointerOrThrow("ibv_alloc_pd", pd, state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static MemorySegment ibvRegMr(MemorySegment pd, MemorySegment address, long length, int access)
            throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment mr = (MemorySegment) IBV_REG_MR.invokeExact(state, pd, address, length, access);
            return pointerOrThrow("ibv_reg_mr", mr, state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static MemorySegment ibvCreateCompChannel(MemorySegment context) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment channel = (MemorySegment) IBV_CREATE_COMP_CHANNEL.invokeExact(state, context);
            return pointerOrThrow("ibv_create_comp_channel", channel, state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static MemorySegment ibvCreateCq(MemorySegment context, int entries, MemorySegment channel)
            throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment cq = (MemorySegment) IBV_CREATE_CQ.invokeExact(state, context, entries,
                    MemorySegment.NULL, channel, 0);
            return pointerOrThrow("ibv_create_cq", cq, state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code ibv_get_cq_event(channel, &cq, &cq_context)} into {@code cqOut}/{@code contextOut}, with a reusable
     * capture-state segment ({@link #newCallState}): called on every wake-up of a blocking CQ wait, so it
     * allocates nothing.
     */
    static void ibvGetCqEvent(MemorySegment channel, MemorySegment cqOut, MemorySegment contextOut,
            MemorySegment state) throws VerbsException {
        int rc;
        try {
            rc = (int) IBV_GET_CQ_EVENT.invokeExact(state, channel, cqOut, contextOut);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        zeroOrThrow("ibv_get_cq_event", rc, state);
    }

    static MemorySegment rdmaCreateEventChannel() throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment channel = (MemorySegment) RDMA_CREATE_EVENT_CHANNEL.invokeExact(state);
            return pointerOrThrow("rdma_create_event_channel", channel, state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code rdma_create_id(channel, &id, NULL, RDMA_PS_TCP)}: a reliable-connected id. */
    static MemorySegment rdmaCreateId(MemorySegment channel) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            MemorySegment idOut = arena.allocate(ValueLayout.ADDRESS);
            int rc = (int) RDMA_CREATE_ID.invokeExact(state, channel, idOut, MemorySegment.NULL,
                    ibverbs_h.RDMA_PS_TCP());
            zeroOrThrow("rdma_create_id", rc, state);
            return idOut.get(ValueLayout.ADDRESS, 0);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaBindAddr(MemorySegment id, MemorySegment sockaddr) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_bind_addr", (int) RDMA_BIND_ADDR.invokeExact(state, id, sockaddr), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaListen(MemorySegment id, int backlog) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_listen", (int) RDMA_LISTEN.invokeExact(state, id, backlog), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaResolveAddr(MemorySegment id, MemorySegment destination, int timeoutMillis)
            throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            int rc = (int) RDMA_RESOLVE_ADDR.invokeExact(state, id, MemorySegment.NULL, destination, timeoutMillis);
            zeroOrThrow("rdma_resolve_addr", rc, state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaResolveRoute(MemorySegment id, int timeoutMillis) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_resolve_route", (int) RDMA_RESOLVE_ROUTE.invokeExact(state, id, timeoutMillis), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaCreateQp(MemorySegment id, MemorySegment pd, MemorySegment initAttr) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_create_qp", (int) RDMA_CREATE_QP.invokeExact(state, id, pd, initAttr), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaConnect(MemorySegment id, MemorySegment connParam) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_connect", (int) RDMA_CONNECT.invokeExact(state, id, connParam), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaAccept(MemorySegment id, MemorySegment connParam) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_accept", (int) RDMA_ACCEPT.invokeExact(state, id, connParam), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void rdmaReject(MemorySegment id, MemorySegment privateData, byte length) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_reject", (int) RDMA_REJECT.invokeExact(state, id, privateData, length), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code rdma_disconnect}; returns the errno (0 on success): callers on teardown paths only log it. */
    static int rdmaDisconnect(MemorySegment id) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            int rc = (int) RDMA_DISCONNECT.invokeExact(state, id);
            return rc == 0 ? 0 : errno(state);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code rdma_migrate_id}: moves the id's events to another event channel. */
    static void rdmaMigrateId(MemorySegment id, MemorySegment channel) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_migrate_id", (int) RDMA_MIGRATE_ID.invokeExact(state, id, channel), state);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code rdma_get_cm_event}: the next event (to be acked), reading the channel's fd. */
    static MemorySegment rdmaGetCmEvent(MemorySegment channel, MemorySegment eventOut) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = state(arena);
            zeroOrThrow("rdma_get_cm_event", (int) RDMA_GET_CM_EVENT.invokeExact(state, channel, eventOut), state);
            return eventOut.get(ValueLayout.ADDRESS, 0);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code poll(2)} on one fd for input. {@code pollfd} is a reusable 8-byte segment, {@code state} a reusable
     * capture-state segment from {@link #newCallState(Arena)}: no allocation per wait.
     *
     * @return true if the fd is readable, false on timeout or EINTR
     */
    static boolean pollIn(MemorySegment pollfd, MemorySegment state, int fd, int timeoutMillis)
            throws VerbsException {
        pollfd.set(ValueLayout.JAVA_INT, 0, fd);
        pollfd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
        pollfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
        int rc;
        try {
            rc = (int) POLL.invokeExact(state, pollfd, 1L, timeoutMillis);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        if (rc < 0) {
            int errno = errno(state);
            if (errno == Errno.EINTR) {
                return false;
            }
            throw VerbsErrors.exception("poll", errno);
        }
        // POLLERR/POLLHUP count as ready too: the read that follows reports the error instead of a busy loop
        return rc > 0;
    }

    /** A capture-state segment to reuse across {@link #pollIn} calls. */
    static MemorySegment newCallState(Arena arena) {
        return state(arena);
    }
}
