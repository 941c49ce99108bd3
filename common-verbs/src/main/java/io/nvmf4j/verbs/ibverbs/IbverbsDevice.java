package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.uring.Errno;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectionManager;
import io.nvmf4j.verbs.DeviceAttributes;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.ProviderUnavailableException;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_context;
import io.nvmf4j.verbs.ibverbs.ffi.ibv_device_attr;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * One RDMA device: an {@code ibv_context} that librdmacm opened ({@code rdma_get_devices}), its limits, and the
 * resources made from it. The context belongs to librdmacm; closing this device destroys what was made from it and
 * releases the device list, it never calls {@code ibv_close_device}.
 */
final class IbverbsDevice implements RdmaDevice {
    private final MemorySegment deviceList;
    private final MemorySegment context;
    private final String name;
    private final DeviceAttributes attributes;
    private final ContextOps ops;
    private final IbverbsConfig config;
    private final Resources resources = new Resources();
    /** rkey -> region, to mark a region invalid when a peer's Send with Invalidate names it. */
    private final java.util.concurrent.ConcurrentHashMap<Integer, IbverbsMemoryRegion> keys =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** Longer than siw's MPA reply timer (MPAREQ_TIMEOUT, 10 s), which a timed-out connect's teardown waits out. */
    private static final long TEARDOWN_WAIT_MILLIS = 15_000;
    private final IbverbsConnectionManager connectionManager;
    private final DeviceEvents events;
    private volatile boolean closed;

    private IbverbsDevice(MemorySegment deviceList, MemorySegment context, String name, DeviceAttributes attributes,
            IbverbsConfig config) throws VerbsException {
        this.deviceList = deviceList;
        this.context = context;
        this.name = name;
        this.attributes = attributes;
        this.ops = ContextOps.of(context);
        this.config = config;
        this.connectionManager = new IbverbsConnectionManager(this);
        this.events = DeviceEvents.acquire(context, name);
    }

    /** Opens the named device (or the first) among those librdmacm knows. */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    static IbverbsDevice open(String nameOrNull, IbverbsConfig config) throws VerbsException {
        Native.DeviceList list = Native.rdmaGetDevices();
        if (list.list().equals(MemorySegment.NULL)) {
            throw new ProviderUnavailableException("ibverbs provider unavailable: rdma_get_devices failed with "
                    + Errno.name(list.errno()) + " (is the rdma_ucm kernel module loaded?); "
                    + IbverbsAvailability.WAY_OUT);
        }
        boolean keep = false;
        try {
            MemorySegment contexts = list.list().reinterpret(ValueLayout.ADDRESS.byteSize() * (list.count() + 1L));
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < list.count(); i++) {
                MemorySegment ctx = contexts.getAtIndex(ValueLayout.ADDRESS, i);
                String deviceName = deviceName(ctx);
                seen.add(deviceName);
                if (nameOrNull == null || nameOrNull.equals(deviceName)) {
                    IbverbsDevice device = new IbverbsDevice(list.list(), ctx, deviceName, query(ctx, deviceName),
                            config);
                    keep = true;
                    return device;
                }
            }
            throw new ProviderUnavailableException(list.count() == 0
                    ? "ibverbs provider unavailable: librdmacm found no RDMA device; " + IbverbsAvailability.WAY_OUT
                    : "no RDMA device named '" + nameOrNull + "' (librdmacm has " + seen + ")");
        } finally {
            if (!keep) {
                ibverbs_h.rdma_free_devices(list.list());
            }
        }
    }

    /** Whether the device is iWARP ({@code ibv_device.transport_type == IBV_TRANSPORT_IWARP}, 1): siw, iWARP RNICs. */
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    boolean iwarp() {
        MemorySegment device = ibv_context.device(context.reinterpret(ibv_context.sizeof()));
        return io.nvmf4j.verbs.ibverbs.ffi.ibv_device.transport_type(
                device.reinterpret(io.nvmf4j.verbs.ibverbs.ffi.ibv_device.sizeof())) == 1;
    }

    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    private static String deviceName(MemorySegment ctx) {
        MemorySegment device = ibv_context.device(ctx.reinterpret(ibv_context.sizeof()));
        return ibverbs_h.ibv_get_device_name(device).reinterpret(256).getString(0);
    }

    private static DeviceAttributes query(MemorySegment ctx, String name) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_device_attr.layout());
            int rc = ibverbs_h.ibv_query_device(ctx, attr);
            if (rc != 0) {
                throw VerbsErrors.exception("ibv_query_device(" + name + ")", rc);
            }
            String firmware = ibv_device_attr.fw_ver(attr).getString(0);
            String vendor = name + " (vendor 0x" + Integer.toHexString(ibv_device_attr.vendor_id(attr)) + ", part "
                    + ibv_device_attr.vendor_part_id(attr) + (firmware.isEmpty() ? "" : ", firmware " + firmware)
                    + ")";
            // max_mr_size is a u64; siw and rxe report ~0 ("no limit"), which a Java long reads as -1
            long maxMrSize = ibv_device_attr.max_mr_size(attr);
            return new DeviceAttributes(vendor, maxMrSize < 0 ? Long.MAX_VALUE : maxMrSize, ibv_device_attr.max_qp(attr),
                    ibv_device_attr.max_qp_wr(attr), ibv_device_attr.max_sge(attr), ibv_device_attr.max_sge_rd(attr),
                    ibv_device_attr.max_cq(attr), ibv_device_attr.max_cqe(attr), ibv_device_attr.max_mr(attr),
                    ibv_device_attr.max_pd(attr), ibv_device_attr.max_qp_rd_atom(attr),
                    ibv_device_attr.max_qp_init_rd_atom(attr), 0);
        }
    }

    MemorySegment context() {
        return context;
    }

    ContextOps ops() {
        return ops;
    }

    IbverbsConfig config() {
        return config;
    }

    java.util.concurrent.ConcurrentHashMap<Integer, IbverbsMemoryRegion> keys() {
        return keys;
    }

    /**
     * qp_num -> connection, so that a CQ or an async event can end the connection of a queue pair that broke;
     * shared by every device object on this context (a queue pair may use another object's CQ).
     */
    java.util.Map<Integer, IbverbsConnection> connectionsByQp() {
        return events.connectionsByQp();
    }

    DeviceEvents events() {
        return events;
    }

    /** Whether {@code other} is this device opened again: the same librdmacm context, so resources mix freely. */
    boolean sameContext(IbverbsDevice other) {
        return other == this || other.context.equals(context);
    }

    Resources resources() {
        return resources;
    }

    void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "device " + name + " is closed");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String providerName() {
        return IbverbsProvider.NAME;
    }

    @Override
    public DeviceAttributes attributes() {
        return attributes;
    }

    @Override
    public ProtectionDomain allocatePd() throws VerbsException {
        checkOpen();
        return resources.add(new IbverbsProtectionDomain(this, Native.ibvAllocPd(context)));
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        checkOpen();
        if (entries < 1 || entries > attributes.maxCqe()) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    "CQ size " + entries + " outside 1.." + attributes.maxCqe() + " of " + name);
        }
        return resources.add(IbverbsCompletionQueue.create(this, entries));
    }

    /** See {@link IbverbsConnectionManager#awaitTeardowns}. */
    boolean awaitTeardowns() {
        return connectionManager.awaitTeardowns(TEARDOWN_WAIT_MILLIS);
    }

    /**
     * Runs a CQ destroy or PD dealloc; on EBUSY waits for the background teardowns of timed-out iWARP connects and
     * tries again every 50 ms for at most {@link #TEARDOWN_WAIT_MILLIS}. The retry does not depend on a teardown
     * still running: interop check 40 met EBUSY after the teardown thread had already ended (the queue pair of a
     * timed-out connect was still holding the CQ for a moment), once in about five runs.
     */
    int destroyWhenReleased(java.util.function.IntSupplier destroy) {
        int rc = destroy.getAsInt();
        if (rc != Errno.EBUSY) {
            return rc;
        }
        awaitTeardowns();
        long deadline = System.nanoTime() + TEARDOWN_WAIT_MILLIS * 1_000_000L;
        while ((rc = destroy.getAsInt()) == Errno.EBUSY && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return rc;
    }

    @Override
    public ConnectionManager connectionManager() {
        return connectionManager;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            connectionManager.close();
            resources.closeAll();
        } finally {
            events.release();
            ibverbs_h.rdma_free_devices(deviceList);
        }
    }

    @Override
    public String toString() {
        return "ibverbs:" + name;
    }
}
