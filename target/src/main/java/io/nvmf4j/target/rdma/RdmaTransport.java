package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRejectStatus;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.backend.BackendIoMode;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.DeviceAttributes;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The NVMe-oF RDMA transport of the target (Linux {@code nvmet-rdma}, SPDK {@code lib/nvmf/rdma.c}): one RDMA
 * device and protection domain, N {@link PollGroup}s, and a listener per {@link Port}. A connect request is checked
 * ({@link CmConnectCheck}), given to the next poll group, accepted with CRQSIZE once its receives are posted, and
 * refused with the binding's reject status otherwise.
 *
 * <p>What an unauthenticated peer can hold ({@link RdmaTransportOptions}): before its NVMe Connect succeeds, one
 * receive buffer, two request contexts and their completion-queue room, at most one 4 KiB pool block (Connect data
 * is exactly 1024 bytes, checked before any buffer is taken), for at most the connect timeout (10 s), with at most
 * 64 such connections per peer address and 128 per poll group; an RDMA Read it never answers ends its connection
 * after the Read timeout (10 s); once connected, at most its queue's share of the pool. Each refused or ended peer
 * is logged once (rate-limited) and counted in {@code nvmf4j_rejected_total{reason}} ({@link RejectReason}).
 */
public final class RdmaTransport implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RdmaTransport.class.getName());
    private static final int BACKLOG = 128;
    /** Ceiling for IRD/ORD we offer: plenty for one Read per command of a 128-entry queue to overlap. */
    private static final int MAX_READ_DEPTH = 16;

    private final NvmeTarget target;
    private final RdmaTransportOptions options;
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final List<PollGroup> groups = new ArrayList<>();
    private final Map<Port, PortListener> listeners = new ConcurrentHashMap<>();
    private final AtomicInteger nextGroup = new AtomicInteger();
    private final HostileLog hostileLog = new HostileLog();
    private final UnconnectedPeers unconnectedPeers;
    private TransportObserver observer = TransportObserver.NONE;
    private volatile boolean closed;

    private RdmaTransport(NvmeTarget target, RdmaTransportOptions options, RdmaDevice device, ProtectionDomain pd) {
        this.target = target;
        this.options = options;
        this.device = device;
        this.pd = pd;
        this.unconnectedPeers = new UnconnectedPeers(options.maxUnconnectedPerAddress());
    }

    /**
     * Opens the provider's device and starts the poll groups. Data buffers are sized for the largest MDTS among
     * the target's ports at this moment (at least 1 MiB).
     */
    public static RdmaTransport open(NvmeTarget target, RdmaTransportOptions options, TransportObserver observer)
            throws VerbsException {
        RdmaProvider provider = "auto".equals(options.provider()) ? RdmaProviders.auto()
                : RdmaProviders.byName(options.provider());
        RdmaDevice device = provider.openDevice(options.device());
        ProtectionDomain pd = null;
        RdmaTransport transport = null;
        try {
            pd = device.allocatePd();
            transport = new RdmaTransport(target, options, device, pd);
            transport.observer = observer == null ? TransportObserver.NONE : observer;
            long largest = 1L << 20;
            for (Port p : target.ports()) {
                largest = Math.max(largest, Math.min(p.maxDataTransferBytes(), 1L << 24));
            }
            BackendSettings backend = target.backendSettings();
            backend = backend.withMode(backend.mode().resolve());
            for (int i = 0; i < options.pollGroups(); i++) {
                transport.groups.add(new PollGroup(i, device, pd, options, largest, transport.observer,
                        transport.unconnectedPeers, transport.hostileLog, backend));
            }
            LOG.log(Level.INFO, "RDMA transport on {0} ({1}): {2} poll group(s), {3} MiB of buffers each, "
                    + "backend I/O on {4}", device.name(), provider.name(), options.pollGroups(),
                    options.bufferPoolBytes() >> 20, backend.mode() == BackendIoMode.URING ? "io_uring" : "threads");
            return transport;
        } catch (VerbsException | RuntimeException e) {
            if (transport != null) {
                transport.close();
            } else {
                if (pd != null) {
                    pd.close();
                }
                device.close();
            }
            throw e;
        }
    }

    public RdmaDevice device() {
        return device;
    }

    /**
     * Starts listening on the port's address (nvmet_rdma_add_port()); returns the bound address. A port of another
     * transport type (TCP) is refused with IllegalArgumentException.
     */
    public InetSocketAddress listen(Port port) throws VerbsException {
        if (port.trtype() != io.nvmf4j.protocol.log.DiscoveryLogEntry.TRTYPE_RDMA) {
            throw new IllegalArgumentException(port + " is not an RDMA port; the RDMA transport cannot listen on it");
        }
        InetSocketAddress address;
        try {
            address = new InetSocketAddress(InetAddress.getByName(port.traddr()), Integer.parseInt(port.trsvcid()));
        } catch (UnknownHostException | NumberFormatException e) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT,
                    "port address " + port.traddr() + ":" + port.trsvcid() + " is not usable: " + e.getMessage());
        }
        RdmaListener listener = device.connectionManager().listen(address, BACKLOG);
        PortListener pl = new PortListener(port, listener);
        listeners.put(port, pl);
        pl.thread.start();
        LOG.log(Level.INFO, "listening on {0} ({1})", listener.localAddress(), port);
        return listener.localAddress();
    }

    /** Stops accepting on a port; its connections stay. */
    public void stopListening(Port port) {
        PortListener pl = listeners.remove(port);
        if (pl != null) {
            pl.close();
        }
    }

    /** Thread ids of the poll groups (tests measure their allocations and CPU). */
    long[] pollThreadIds() {
        long[] ids = new long[groups.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = groups.get(i).threadId();
        }
        return ids;
    }

    /** Free bytes in the poll groups' buffer pools (tests; a racy read of the poll threads' counters). */
    long bufferBytesFree() {
        long n = 0;
        for (PollGroup g : groups) {
            n += g.bufferBytesFree();
        }
        return n;
    }

    /**
     * A read-only snapshot of every poll group: busy and idle polls, buffer pool use, queues ({@link PollGroupStats}).
     * Any thread; reads the poll threads' counters without stopping or locking them (the queue count takes the
     * group's registration lock, never held by the data path).
     */
    public java.util.List<PollGroupStats> pollGroupStats() {
        java.util.List<PollGroupStats> out = new ArrayList<>(groups.size());
        for (PollGroup g : groups) {
            out.add(g.stats());
        }
        return java.util.List.copyOf(out);
    }

    /** Connected queues over all poll groups. */
    public int queueCount() {
        int n = 0;
        for (PollGroup g : groups) {
            n += g.queueCount();
        }
        return n;
    }

    private final class PortListener implements AutoCloseable {
        final Port port;
        final RdmaListener listener;
        final Thread thread;
        volatile boolean stop;

        PortListener(Port port, RdmaListener listener) {
            this.port = port;
            this.listener = listener;
            this.thread = new Thread(this::run, "nvmf4j-listen-" + port.traddr() + ":" + port.trsvcid());
            this.thread.setDaemon(true);
        }

        private void run() {
            while (!stop) {
                ConnectRequest request;
                try {
                    request = listener.accept(Duration.ofMillis(200));
                } catch (VerbsException e) {
                    if (stop) {
                        return;
                    }
                    LOG.log(Level.WARNING, "{0}: accept failed: {1}", port, e.getMessage());
                    sleepQuietly(100);
                    continue;
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, port + ": accept failed", e);
                    sleepQuietly(100);
                    continue;
                }
                if (request != null) {
                    try {
                        handle(port, request);
                    } catch (RuntimeException e) {
                        LOG.log(Level.ERROR, port + ": connect request from " + request.remoteAddress() + " failed", e);
                    }
                }
            }
        }

        @Override
        public void close() {
            stop = true;
            try {
                listener.close();
            } catch (Exception e) {
                LOG.log(Level.DEBUG, "closing listener: {0}", e.getMessage());
            }
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** nvmet_rdma_queue_connect(). */
    private void handle(Port port, ConnectRequest request) {
        CmConnectCheck.Outcome outcome = CmConnectCheck.check(request.privateData(), port);
        if (outcome instanceof CmConnectCheck.Rejected rejected) {
            reject(request, rejected.status(), rejected.reason(), RejectReason.CM_REQUEST);
            return;
        }
        CmConnectCheck.Accepted sizing = (CmConnectCheck.Accepted) outcome;
        if (closed) {
            reject(request, RdmaCmRejectStatus.NO_RSC, "target shutting down", null);
            return;
        }
        PollGroup group = pickGroup(sizing.recvQueueEntries());
        if (group == null) {
            reject(request, RdmaCmRejectStatus.NO_RSC, "no poll group", RejectReason.NO_RESOURCES);
            return;
        }
        InetSocketAddress remote = request.remoteAddress();
        SlotReservation.Reserved reservation;
        switch (group.reserve(sizing.recvQueueEntries(), remote == null ? null : remote.getAddress())) {
            case SlotReservation.Reserved r -> reservation = r;
            case SlotReservation.Refused.UNCONNECTED_LIMIT -> {
                reject(request, RdmaCmRejectStatus.NO_RSC, "too many connections without a completed Connect (at "
                        + "most " + options.maxUnconnectedPerGroup() + " per poll group, "
                        + options.maxUnconnectedPerAddress() + " per address)", RejectReason.UNCONNECTED_LIMIT);
                return;
            }
            case SlotReservation.Refused.NO_ROOM -> {
                reject(request, RdmaCmRejectStatus.NO_RSC, "poll group " + group.id() + " is full",
                        RejectReason.NO_RESOURCES);
                return;
            }
        }
        RdmaQueue queue;
        try {
            queue = new RdmaQueue(group, reservation.slot(), reservation.generation(), target, port, sizing,
                    request.remoteAddress(), request.localAddress(), options.trace());
        } catch (VerbsException | RuntimeException e) {
            group.unreserve(reservation.slot());
            reject(request, RdmaCmRejectStatus.NO_RSC, "no resources: " + e.getMessage(), RejectReason.NO_RESOURCES);
            return;
        }
        group.register(queue);
        DeviceAttributes attrs = device.attributes();
        int ird = Math.max(1, Math.min(MAX_READ_DEPTH, attrs.maxQpRdAtom()));
        int ord = Math.max(1, Math.min(MAX_READ_DEPTH, attrs.maxQpInitRdAtom()));
        AcceptParams params = new AcceptParams(pd, group.completionQueue(), group.completionQueue(),
                queue.queuePairAttributes(ird, ord), RdmaCmAccept.of(sizing.recvQueueEntries()).toBytes(),
                queue::postInitialReceives);
        RdmaConnection connection;
        try {
            connection = request.accept(params);
        } catch (VerbsException | RuntimeException e) {
            LOG.log(Level.WARNING, "accepting queue {0} from {1} failed: {2}", sizing.qid(), request.remoteAddress(),
                    e.getMessage());
            group.unreserve(reservation.slot());
            queue.abandon();
            return;
        }
        queue.connected(connection);
        LOG.log(Level.DEBUG, "accepted queue {0} from {1}: {2} receive buffers of {3} bytes, poll group {4}",
                sizing.qid(), request.remoteAddress(), sizing.recvQueueEntries(), queue.capsuleSize, group.id());
    }

    private PollGroup pickGroup(int recvEntries) {
        if (groups.isEmpty()) {
            return null;
        }
        int start = Math.floorMod(nextGroup.getAndIncrement(), groups.size());
        return groups.get(start);
    }

    /** Refuses a connect request: logged (rate-limited) and counted under {@code counted} unless null. */
    private void reject(ConnectRequest request, RdmaCmRejectStatus status, String reason, RejectReason counted) {
        if (counted == null) {
            LOG.log(Level.INFO, "refused RDMA connection from {0}: {1} ({2})", request.remoteAddress(),
                    status.message(), reason);
        } else {
            observer.peerRejected(counted);
            hostileLog.log(counted, String.valueOf(request.remoteAddress()), "RDMA connection refused with "
                    + status.message() + ": " + reason);
        }
        try {
            request.reject(RdmaCmReject.of(status).toBytes());
        } catch (VerbsException e) {
            LOG.log(Level.DEBUG, "reject to {0} failed: {1}", request.remoteAddress(), e.getMessage());
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops accepting, closes every connection (commands already running finish first: each runs to completion on
     * its poll-group thread), waits for the flushes, and closes the device. The caller closes the
     * {@link NvmeTarget} afterwards, which flushes the backends.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (PortListener pl : listeners.values()) {
            pl.close();
        }
        listeners.clear();
        for (PollGroup g : groups) {
            g.shutdown(3000);
        }
        try {
            pd.close();
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "closing protection domain: {0}", e.getMessage());
        }
        device.close();
    }
}
