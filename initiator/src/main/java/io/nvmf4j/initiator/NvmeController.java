package io.nvmf4j.initiator;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.NamespaceDescriptor;
import io.nvmf4j.protocol.fabrics.ControllerCapabilities;
import io.nvmf4j.protocol.fabrics.NvmeVersion;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.VerbsException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connected NVMe-oF controller, host side: an admin queue and N I/O queues over RDMA, enabled and identified.
 * Mirrors the sequence of Linux {@code nvme_rdma_setup_ctrl()} / {@code nvme_rdma_configure_admin_queue()} /
 * {@code nvme_enable_ctrl()} / {@code nvme_init_ctrl_finish()} / {@code nvme_rdma_configure_io_queues()}:
 *
 * <ol>
 *   <li>admin queue: RDMA CM connect (HRQSIZE 32, HSQSIZE 31), Fabrics Connect (SQSIZE 31, KATO, CNTLID FFFFh)
 *       with the 1024-byte Connect data by keyed SGL (the admin queue carries no in-capsule data, as in Linux);</li>
 *   <li>Property Get CAP; SQSIZE = min(queue-size - 1, CAP.MQES); Property Set CC (EN=1, CSS NVM, MPS 4 KiB,
 *       IOSQES 6, IOCQES 4); Property Get CSTS until RDY within CAP.TO (CFS is an error); Property Get VS;</li>
 *   <li>Identify Controller: keyed SGLs are mandatory (SGLS bit 2), MDTS bounds one command's data, IOCCSZ/ICDOFF
 *       and SGLS bit 20 decide in-capsule data, MAXCMD bounds the queue size;</li>
 *   <li>Set Features Number of Queues, then one RDMA connection and one Fabrics Connect per I/O queue;</li>
 *   <li>Identify the active namespace list (CNS 02h, paged) and each namespace (CNS 00h).</li>
 * </ol>
 *
 * <p>Keep Alive goes out every KATO/2 from a library thread. When a connection breaks (peer gone, Terminate, a
 * command timeout) every queue is torn down and the whole sequence is retried every reconnect-delay until
 * ctrl-loss-tmo; I/O waiting or in flight is re-sent after a successful reconnect and fails with
 * {@link NvmfControllerLostException} after ctrl-loss-tmo.
 *
 * <p>Threads: futures returned by this class and {@link Namespace} complete on the completion thread of the queue
 * that carried the command; dependent stages run there too unless the caller moves them (use the {@code *Async}
 * methods of {@link CompletableFuture} with an executor for heavy work). A failure may complete them elsewhere: on
 * the controller thread ({@code nvmf4j-ctrl-<port>}) when ctrl-loss-tmo expires, on the thread calling
 * {@link #close()}, on the submitting thread when the command is refused before it is queued; the full list is in
 * {@link IoCompletionHandler}.
 */
public final class NvmeController implements AutoCloseable {

    private static final Logger LOG = System.getLogger(NvmeController.class.getName());

    /** Bounce buffer size of the admin queue: one Identify structure or one log page chunk (libnvme's 4096). */
    static final int ADMIN_BUFFER_SIZE = 4096;

    private final ConnectOptions options;
    final RdmaDevice device;
    private final boolean ownsDevice;
    final ProtectionDomain pd;
    private final String name;
    final ScheduledExecutorService timers;
    private final HostBuffers buffers;
    final ControllerSetup setup;
    final ControllerRecovery recovery;
    private final KeepAlive keepAlive;
    /** {@link #close()} has begun (state alone cannot say: a controller past ctrl-loss-tmo is DEAD but open). */
    private boolean closed;
    final AsyncEventHandler events;

    // Written by ControllerSetup (first connect, reconnect) and ControllerRecovery.
    HostQueue admin;
    final List<HostQueue> ioQueues = new ArrayList<>();
    volatile ControllerState state = ControllerState.CONNECTING;
    ControllerId controllerId = ControllerId.DYNAMIC;
    ControllerCapabilities capabilities;
    NvmeVersion version;
    IdentifyController identify;
    /** Entries per I/O queue (SQSIZE + 1), fixed at the first connect. */
    int ioQueueSize;
    long maxTransferBytes;
    int inCapsuleBytes;
    final Map<Long, Namespace> namespaces = new LinkedHashMap<>();
    private final AtomicInteger nextQueue = new AtomicInteger();

    private NvmeController(ConnectOptions options, RdmaDevice device, boolean ownsDevice) throws VerbsException {
        this.options = options;
        this.device = device;
        this.ownsDevice = ownsDevice;
        this.pd = device == null ? null : device.allocatePd(); // NVMe/TCP: no device, nothing registered
        this.name = "nvme-" + options.subsystemNqn().value().replaceAll("[^A-Za-z0-9.-]", "_");
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nvmf4j-ctrl-" + options.address().getPort());
            t.setDaemon(true);
            return t;
        });
        this.buffers = new HostBuffers(name, pd);
        this.setup = new ControllerSetup(this);
        this.recovery = new ControllerRecovery(this);
        this.keepAlive = new KeepAlive(this);
        this.events = new AsyncEventHandler(this);
    }

    /**
     * Opens the RDMA device named in the options (or the automatic choice), connects, enables and identifies the
     * controller. Fails within about connect-timeout for an absent or silent target.
     */
    public static NvmeController connect(ConnectOptions options) throws NvmfException {
        if (!Transports.of(options).usesRdmaDevice()) {
            return connect(options, null, false);
        }
        RdmaDevice device;
        try {
            RdmaProvider provider = options.provider() == null ? RdmaProviders.auto()
                    : RdmaProviders.byName(options.provider());
            device = provider.openDevice(options.device());
        } catch (VerbsException e) {
            throw new NvmfConnectException("no RDMA device: " + e.getMessage(), e);
        }
        return connect(options, device, true);
    }

    /** Connects over an already opened device, which the caller keeps owning (closed with it, not with this). */
    public static NvmeController connect(ConnectOptions options, RdmaDevice device) throws NvmfException {
        if (!Transports.of(options).usesRdmaDevice()) {
            throw new IllegalArgumentException("transport " + options.transport() + " uses no RDMA device");
        }
        return connect(options, device, false);
    }

    private static NvmeController connect(ConnectOptions options, RdmaDevice device, boolean owns)
            throws NvmfException {
        NvmeController controller;
        try {
            controller = new NvmeController(options, device, owns);
        } catch (VerbsException e) {
            if (owns) {
                device.close();
            }
            throw new NvmfConnectException("cannot allocate a protection domain: " + e.getMessage(), e);
        }
        try {
            controller.setup.run(true);
            if (!controller.recovery.goLive(ControllerState.CONNECTING)) {
                throw new NvmfConnectException(controller.name + ": closed while connecting");
            }
            controller.keepAlive.start();
            controller.events.start(false);
            return controller;
        } catch (NvmfException | RuntimeException e) {
            controller.close();
            throw e;
        }
    }

    // ---- admin commands (their bodies: AdminQueries) ----------------------------------------------------------

    private final AdminQueries queries = new AdminQueries(this);

    /**
     * Identify CNS 02h from NSID 0 on, following the 1024-entry pages like nvme_scan_ns_list(), bounded by NN and
     * {@link NamespaceListReader#MAX_PAGES}: a controller that lies about its list fails this with an
     * {@link NvmfException} instead of keeping the host reading.
     */
    public List<Long> activeNamespaceIds() throws NvmfException {
        return queries.activeNamespaceIds();
    }

    /** Identify Namespace (CNS 00h). */
    public IdentifyNamespace identifyNamespace(long nsid) throws NvmfException {
        return queries.identifyNamespace(nsid);
    }

    /**
     * Identify CNS 03h: the Namespace Identification Descriptor list of {@code nsid} (EUI-64, NGUID, UUID, CSI;
     * NVMe Base 2.0, 5.17.2.3), as Linux nvme_identify_ns_descs() reads it; a controller that refuses CNS 03h
     * (before NVMe 1.3) gives an empty list.
     */
    public List<NamespaceDescriptor> namespaceDescriptors(long nsid) throws NvmfException {
        return queries.namespaceDescriptors(nsid);
    }

    /**
     * Get Log Page: {@code length} bytes from byte {@code offset}, fetched in chunks of at most 4096 bytes (libnvme's
     * NVME_LOG_PAGE_PDU_SIZE, so MDTS never matters), RAE set on every chunk but the last unless {@code rae}.
     */
    public MemorySegment getLogPage(int lid, long nsid, long offset, int length, boolean rae) throws NvmfException {
        return queries.getLogPage(lid, nsid, offset, length, rae);
    }

    /**
     * Get Features (NVMe Base 2.0, 5.15; {@code nvme_get_features()} of libnvme): Feature Identifier {@code fid}
     * (CDW10 bits 7:0), Select {@code sel} (bits 10:8: 0 current, 1 default, 2 saved, 3 supported capabilities),
     * {@code cdw11} as the feature defines it, for namespace {@code nsid} (0 when the feature is not per-namespace).
     * {@code data}, when not null and not empty, receives the feature's data structure (at most 4096 bytes, e.g. 16
     * for Host Identifier with EXHID). An NVMe status comes back in the result; transport failures are thrown.
     */
    public FeatureResult getFeatures(int fid, long nsid, int sel, int cdw11, MemorySegment data) throws NvmfException {
        return queries.getFeatures(fid, nsid, sel, cdw11, data);
    }

    /**
     * Host-initiated re-authentication on the admin queue (what Linux exposes by writing a new key to
     * {@code dhchap_secret} in sysfs): a new DH-HMAC-CHAP transaction with the keys of the options.
     *
     * @throws NvmfAuthenticationException when it fails; the controller then tears the association down
     */
    public void reauthenticate() throws NvmfException {
        requireUsable();
        authenticator().authenticate(admin, (q, cmd) -> runAdmin(cmd));
    }

    private final java.util.concurrent.atomic.AtomicReference<DhchapAuthenticator> authenticator =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** DH-HMAC-CHAP of this controller's queues (one per controller: it numbers the transactions). */
    DhchapAuthenticator authenticator() {
        DhchapAuthenticator a = authenticator.get();
        if (a == null) {
            authenticator.compareAndSet(null, new DhchapAuthenticator(options, name()));
            a = authenticator.get();
        }
        return a;
    }

    /**
     * The ANA log page (0Ch; NVMe Base 2.0, 5.16.1.12) seen through this controller's path: each ANA group's state
     * and NSIDs, read whole at the size Linux reads it (nvme_mpath_init_identify(): the header, NANAGRPID group
     * descriptors and MNAN NSIDs), in 4 KiB pieces. A controller that does not report ANA (CMIC bit 3 clear) has an
     * empty page. What ANA-aware path choice reads.
     */
    public AnaLogPage anaLog() throws NvmfException {
        return queries.anaLog();
    }

    long runAdmin(FutureRequest command) throws NvmfException {
        requireUsable();
        admin.submit(command);
        return Futures.await(command.future, adminWaitMillis(), command.describe());
    }

    private long adminWaitMillis() {
        // Long enough to ride out a reconnect inside ctrl-loss-tmo, never unbounded.
        long loss = options.ctrlLossTimeout().isNegative() ? TimeUnit.HOURS.toMillis(24)
                : options.ctrlLossTimeout().toMillis();
        return options.commandTimeout().toMillis() + loss + 1000;
    }

    private void requireUsable() throws NvmfControllerLostException {
        if (state == ControllerState.DEAD || state == ControllerState.DELETING) {
            throw new NvmfControllerLostException(name + ": controller is " + state.name().toLowerCase(Locale.ROOT));
        }
    }

    /**
     * I/O queue {@code index}'s completion polling, for a thread that submits on that queue (through
     * {@code Namespace.onQueue(index)}) and would rather poll it itself than be handed its completions.
     */
    public QueuePolling queuePolling(int index) {
        if (index < 0 || index >= ioQueues.size()) {
            throw new IllegalArgumentException("I/O queue index " + index + " outside 0.." + (ioQueues.size() - 1));
        }
        HostQueue queue = ioQueues.get(index);
        return new QueuePolling() {
            @Override
            public boolean claim() {
                return queue.claimPolling();
            }

            @Override
            public int poll() {
                return queue.pollClaimed();
            }

            @Override
            public void release() {
                queue.releasePolling();
            }

            @Override
            public long wakeOnCompletion(Runnable wake) {
                return queue.wakeOnCompletion(wake);
            }

            @Override
            public long wakeOnCompletionWatching(Runnable wake) {
                return queue.wakeOnCompletionWatching(wake);
            }

            @Override
            public int waitDescriptor() {
                return queue.waitDescriptor();
            }

            @Override
            public void cancelWake() {
                queue.cancelWake();
            }

            @Override
            public void holdSends() {
                queue.holdSends();
            }

            @Override
            public void flushSends() {
                queue.flushSends();
            }
        };
    }

    // ---- queues and buffers for Namespace -------------------------------------------------------------------

    HostQueue ioQueue(int index) {
        return ioQueues.get(index);
    }

    HostQueue nextIoQueue() {
        if (ioQueues.isEmpty()) {
            throw new IllegalStateException(name + " has no I/O queues (a discovery controller?)");
        }
        return ioQueues.get(Math.floorMod(nextQueue.getAndIncrement(), ioQueues.size()));
    }

    ControllerState stateForIo() {
        return state;
    }

    /**
     * Allocates native memory of {@code size} bytes registered for zero-copy I/O: pass it to the {@link Namespace}
     * I/O calls and the target moves the data straight in or out. The registration gives no remote access by
     * itself: each command exposes exactly its own bytes, for its own life, through a memory window.
     */
    public IoBuffer allocateBuffer(long size) throws NvmfException {
        return buffers.allocate(size);
    }

    /** Registers caller-owned native memory for zero-copy I/O; the segment must outlive the buffer. */
    public IoBuffer registerBuffer(MemorySegment nativeSegment) throws NvmfException {
        return buffers.register(nativeSegment);
    }

    // ---- accessors ------------------------------------------------------------------------------------------

    public ConnectOptions options() {
        return options;
    }

    public ControllerState state() {
        return state;
    }

    /** The controller ID the target allocated in the admin Connect. */
    public ControllerId controllerId() {
        return controllerId;
    }

    public ControllerCapabilities capabilities() {
        return capabilities;
    }

    public NvmeVersion version() {
        return version;
    }

    /** The Identify Controller data (a private copy: changing it changes nothing). */
    public IdentifyController identify() {
        MemorySegment copy = MemorySegment.ofArray(new byte[IdentifyController.SIZE]);
        MemorySegment.copy(identify.segment(), 0, copy, 0, IdentifyController.SIZE);
        return IdentifyController.wrap(copy);
    }

    public int ioQueueCount() {
        return ioQueues.size();
    }

    /** Entries per I/O queue after the CAP.MQES/MAXCMD bounds (SQSIZE + 1). */
    public int ioQueueSize() {
        return ioQueueSize;
    }

    /** The most data one command carries: MDTS in bytes, bounded by the 24-bit keyed SGL length. */
    public long maxTransferBytes() {
        return maxTransferBytes;
    }

    /** Bytes of write data sent in-capsule on I/O queues; 0 when the controller does not offer it. */
    public int inCapsuleDataBytes() {
        return inCapsuleBytes;
    }

    /**
     * The active namespaces by NSID: found at connect time, then kept current by the Namespace Attribute Changed
     * event (an Asynchronous Event Request is always outstanding; see {@link #onNamespaceChange}).
     */
    public List<Namespace> namespaces() {
        synchronized (namespaces) {
            return List.copyOf(namespaces.values());
        }
    }

    public Optional<Namespace> namespace(long nsid) {
        synchronized (namespaces) {
            return Optional.ofNullable(namespaces.get(nsid));
        }
    }

    /** The first active namespace, the usual target of a single-namespace subsystem. */
    public Namespace firstNamespace() throws NvmfException {
        synchronized (namespaces) {
            return namespaces.values().stream().findFirst()
                    .orElseThrow(() -> new NvmfException(name + ": the subsystem has no active namespace"));
        }
    }

    /**
     * Calls {@code listener} after each rescan that changed {@link #namespaces()}: a namespace added, removed or
     * resized on the target (Namespace Attribute Changed, NVMe Base 2.0, 5.2 and 5.16.1.5), or a reconnect or
     * {@link #rescanNamespaces()} that found a difference. Runs on the controller's event thread; keep it short
     * and do not close the controller from it.
     */
    public void onNamespaceChange(java.util.function.Consumer<NamespaceChange> listener) {
        events.addListener(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Calls {@code listener} with the ANA log page (0Ch) read after each ANA change notice (NVMe Base 2.0, 5.2,
     * information 03h) and after each reconnect, as Linux {@code nvme_ana_work()}: what multipath path choice
     * ({@link MultipathController}) follows. Runs on the controller's event thread; keep it short.
     */
    public void onAnaChange(java.util.function.Consumer<AnaLogPage> listener) {
        events.addAnaListener(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** Re-reads the ANA log on the event thread, for the ANA listeners (multipath after an ANA status). */
    void requestAnaUpdate() {
        events.requestAnaUpdate();
    }

    /**
     * Rescans the active namespaces now (like {@code nvme ns-rescan}) and returns what changed; listeners are called
     * as for an event.
     */
    public NamespaceChange rescanNamespaces() throws NvmfException {
        requireUsable();
        return events.rescan();
    }

    /** Commands waiting for a slot on every queue (admin first): diagnostics and back-pressure tests. */
    public List<Integer> pendingPerQueue() {
        List<Integer> out = new ArrayList<>();
        out.add(admin.pendingCount());
        for (HostQueue q : ioQueues) {
            out.add(q.pendingCount());
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Shuts the controller down like {@code nvme_shutdown_ctrl()} (CC.SHN normal, CSTS.SHST complete within a
     * bounded wait) when it is live, then disconnects every queue and frees the memory. Idempotent.
     */
    @Override
    public void close() {
        ControllerState before;
        synchronized (recovery.lock) {
            before = state;
            if (closed) {
                return;
            }
            closed = true;
            state = ControllerState.DELETING;
        }
        keepAlive.stop();
        events.stop();
        if (before == ControllerState.LIVE && capabilities != null) {
            try {
                setup.shutdown();
            } catch (NvmfException | RuntimeException e) {
                LOG.log(Level.DEBUG, name + ": shutdown notification failed: " + e.getMessage());
            }
        }
        for (HostQueue q : ioQueues) {
            q.close();
        }
        if (admin != null) {
            admin.close();
        }
        timers.shutdownNow();
        if (pd != null) {
            pd.close();
        }
        if (ownsDevice) {
            device.close();
        }
        buffers.close();
        state = ControllerState.DEAD;
    }

    /** The Keep Alive timer (tests hold a send in it). */
    KeepAlive keepAlive() {
        return keepAlive;
    }

    @Override
    public String toString() {
        return name + "[" + options.address() + ", " + controllerId + ", " + state + ", " + ioQueues.size()
                + " I/O queues of " + ioQueueSize + "]";
    }

    String name() {
        return name;
    }

    CompletableFuture<Long> submitAdmin(FutureRequest command) {
        admin.submit(command);
        return command.future;
    }
}
