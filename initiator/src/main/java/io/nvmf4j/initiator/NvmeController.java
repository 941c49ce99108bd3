package io.nvmf4j.initiator;

import io.nvmf4j.initiator.rdma.HostCommand;
import io.nvmf4j.initiator.rdma.RdmaHostQueue;
import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.KeepAliveCommand;
import io.nvmf4j.protocol.admin.NumberOfQueues;
import io.nvmf4j.protocol.admin.SetFeaturesCommand;
import io.nvmf4j.protocol.fabrics.ConnectCommand;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.ConnectResponse;
import io.nvmf4j.protocol.fabrics.ControllerCapabilities;
import io.nvmf4j.protocol.fabrics.ControllerConfiguration;
import io.nvmf4j.protocol.fabrics.ControllerProperty;
import io.nvmf4j.protocol.fabrics.ControllerStatus;
import io.nvmf4j.protocol.fabrics.NvmeVersion;
import io.nvmf4j.protocol.fabrics.PropertyGetCommand;
import io.nvmf4j.protocol.fabrics.PropertySetCommand;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

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
 * {@link ControllerLostException} after ctrl-loss-tmo.
 *
 * <p>Threads: futures returned by this class and {@link Namespace} complete on the completion thread of the queue
 * that carried the command; dependent stages run there too unless the caller moves them (use the {@code *Async}
 * methods of {@link CompletableFuture} with an executor for heavy work).
 */
public final class NvmeController implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(NvmeController.class.getName());

    /** Bounce buffer size of the admin queue: one Identify structure or one log page chunk (libnvme's 4096). */
    static final int ADMIN_BUFFER_SIZE = 4096;
    private static final int ADMIN_BUFFERS = 4;

    private final ConnectOptions options;
    private final RdmaDevice device;
    private final boolean ownsDevice;
    private final ProtectionDomain pd;
    private final String name;
    private final ScheduledExecutorService timers;
    private final Arena bufferArena = Arena.ofShared();

    private RdmaHostQueue admin;
    private final List<RdmaHostQueue> ioQueues = new ArrayList<>();
    private volatile ControllerState state = ControllerState.CONNECTING;
    private ControllerId controllerId = ControllerId.DYNAMIC;
    private ControllerCapabilities capabilities;
    private NvmeVersion version;
    private IdentifyController identify;
    private int ioQueueSize;
    private long maxTransferBytes;
    private int inCapsuleBytes;
    private final Map<Long, Namespace> namespaces = new LinkedHashMap<>();
    private final AtomicInteger nextQueue = new AtomicInteger();
    private ScheduledFuture<?> keepAlive;
    private long lostSinceNanos;
    private final Object recoveryLock = new Object();

    private NvmeController(ConnectOptions options, RdmaDevice device, boolean ownsDevice) throws VerbsException {
        this.options = options;
        this.device = device;
        this.ownsDevice = ownsDevice;
        this.pd = device.allocatePd();
        this.name = "nvme-" + options.subsystemNqn().value().replaceAll("[^A-Za-z0-9.-]", "_");
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nvmf4j-ctrl-" + options.address().getPort());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens the RDMA device named in the options (or the automatic choice), connects, enables and identifies the
     * controller. Fails within about connect-timeout for an absent or silent target.
     */
    public static NvmeController connect(ConnectOptions options) throws NvmfException {
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
            controller.establish(true);
            synchronized (controller.recoveryLock) {
                controller.requireAllQueuesLive();
                controller.state = ControllerState.LIVE;
            }
            controller.startKeepAlive();
            return controller;
        } catch (NvmfException | RuntimeException e) {
            controller.close();
            throw e;
        }
    }

    // ---- connect sequence -----------------------------------------------------------------------------------

    private void establish(boolean first) throws NvmfException {
        if (first) {
            admin = newQueue("admin", QueueId.ADMIN, ConnectOptions.ADMIN_QUEUE_SIZE, ADMIN_BUFFER_SIZE, ADMIN_BUFFERS);
        }
        admin.connect(options.address(), options.connectTimeout());
        MemorySegment connectData = connectData(ControllerId.DYNAMIC);
        long katoMillis = options.keepAliveTimeout().toMillis();
        FutureCommand connect = initCommand("Connect admin queue to " + options.subsystemNqn(), true,
                sqe -> ConnectCommand.adminQueue(CommandId.of(0), nullSgl(), admin.sqsize(), katoMillis).encode(sqe));
        connect.copy(HostCommand.Direction.HOST_TO_CONTROLLER, connectData);
        long dw0 = runInit(admin, connect);
        controllerId = ConnectResponse.controllerId((int) dw0);
        admin.markLive();

        capabilities = ControllerCapabilities.fromRaw(propertyGet(ControllerProperty.CAP));
        // nvme_rdma_configure_admin_queue(): sqsize = min(MQES, sqsize)
        int sqsize = Math.min(options.queueSize() - 1, capabilities.mqes());
        enableController();
        version = NvmeVersion.fromRaw((int) propertyGet(ControllerProperty.VS));

        MemorySegment idData = MemorySegment.ofArray(new byte[IdentifyController.SIZE]);
        FutureCommand id = initCommand("Identify Controller", false,
                sqe -> IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0));
        id.copy(HostCommand.Direction.CONTROLLER_TO_HOST, idData);
        runInit(admin, id);
        identify = IdentifyController.wrap(idData);
        if ((identify.sgls() & IdentifyController.SGLS_KEYED) == 0) {
            // nvme_rdma_setup_ctrl(): "Mandatory keyed sgls are not supported!"
            throw new NvmfConnectException(name + ": the controller does not support keyed SGLs (SGLS bit 2), "
                    + "which NVMe/RDMA requires");
        }
        if (identify.maxcmd() > 0 && sqsize + 1 > identify.maxcmd()) {
            sqsize = identify.maxcmd() - 1;
        }
        if (sqsize < 1) {
            // CAP.MQES and MAXCMD are the controller's word: a queue needs two entries at least (a full queue
            // leaves one empty, NVMe Base 2.0 section 3.3.1.5), so 0 or 1 cannot carry a command
            throw new NvmfConnectException(name + ": the controller allows I/O queues of " + (sqsize + 1)
                    + " entries (CAP.MQES " + capabilities.mqes() + ", MAXCMD " + identify.maxcmd()
                    + "); at least 2 are needed");
        }
        long pageSize = 1L << (12 + capabilities.mpsmin());
        long mdts = identify.mdts() == 0 ? Long.MAX_VALUE : (1L << identify.mdts()) * pageSize;
        maxTransferBytes = Math.min(mdts, KeyedSglDescriptor.MAX_LENGTH + 1L - pageSize);
        boolean offsetSgl = (identify.sgls() & IdentifyController.SGLS_OFFSET) != 0;
        long capsuleData = identify.inCapsuleDataSize();
        if (identify.icdoff() != 0 && offsetSgl && options.inCapsuleData()) {
            LOG.warning(name + ": ICDOFF " + identify.icdoff() + " is not supported (as in Linux); "
                    + "writes go by keyed SGL only");
        }
        inCapsuleBytes = options.inCapsuleData() && offsetSgl && identify.icdoff() == 0
                ? (int) Math.min(capsuleData, options.bufferSize()) : 0;

        if (options.isDiscovery() || options.ioQueues() == 0) {
            return;
        }
        int wanted = options.ioQueues();
        FutureCommand nq = initCommand("Set Features Number of Queues", false,
                sqe -> SetFeaturesCommand.numberOfQueues(sqe, new NumberOfQueues(wanted, wanted)));
        nq.noData();
        NumberOfQueues granted = NumberOfQueues.fromDword((int) runInit(admin, nq));
        int count = Math.min(wanted, Math.min(granted.submissionQueues(), granted.completionQueues()));
        if (count < 1) {
            throw new NvmfConnectException(name + ": the controller granted no I/O queues");
        }
        int entries = sqsize + 1;
        if (first) {
            ioQueueSize = entries;
            for (int q = 1; q <= count; q++) {
                ioQueues.add(newQueue("io" + q, QueueId.of(q), entries, options.bufferSize(), options.buffersPerQueue()));
            }
        } else if (count < ioQueues.size() || entries < ioQueueSize) {
            throw new NvmfConnectException(name + ": after reconnect the controller grants " + count
                    + " queues of " + entries + " entries, fewer than the " + ioQueues.size() + " of " + ioQueueSize
                    + " in use");
        }
        for (RdmaHostQueue queue : ioQueues) {
            queue.inCapsuleCapacity(inCapsuleBytes);
            queue.connect(options.address(), options.connectTimeout());
            MemorySegment data = connectData(controllerId);
            FutureCommand qc = initCommand("Connect " + queue.qid(), true,
                    sqe -> ConnectCommand.ioQueue(CommandId.of(0), nullSgl(), queue.qid(), queue.sqsize()).encode(sqe));
            qc.copy(HostCommand.Direction.HOST_TO_CONTROLLER, data);
            runInit(queue, qc);
            queue.markLive();
        }
        if (first) {
            identifyNamespaces();
        }
    }

    private RdmaHostQueue newQueue(String queueName, QueueId qid, int size, int bufferSize, int buffers)
            throws NvmfException {
        try {
            return new RdmaHostQueue(name + "-" + queueName, qid, size, device, pd, bufferSize, buffers,
                    options.commandTimeout(), options.spinBudget(), (queue, reason) -> queueFailed(reason));
        } catch (VerbsException e) {
            throw new NvmfConnectException(name + ": cannot register queue memory: " + e.getMessage(), e);
        }
    }

    private MemorySegment connectData(ControllerId cntlid) {
        MemorySegment data = MemorySegment.ofArray(new byte[ConnectData.SIZE]);
        new ConnectData(options.host().hostId(), cntlid, options.subsystemNqn(), options.host().hostNqn()).encode(data);
        return data;
    }

    private static KeyedSglDescriptor nullSgl() {
        return new KeyedSglDescriptor(0, 0, 0, false);
    }

    private FutureCommand initCommand(String what, boolean fabrics,
            java.util.function.Consumer<io.nvmf4j.protocol.SubmissionQueueEntry> encoder) {
        return new FutureCommand(what, fabrics, false, encoder);
    }

    private long runInit(RdmaHostQueue queue, FutureCommand command) throws NvmfException {
        queue.submitInit(command);
        return Futures.await(command.future, options.commandTimeout().toMillis() + 1000, command.describe());
    }

    private long propertyGet(ControllerProperty property) throws NvmfException {
        FutureCommand get = initCommand("Property Get " + property, true,
                sqe -> PropertyGetCommand.of(CommandId.of(0), property).encode(sqe));
        get.noData();
        return runInit(admin, get);
    }

    private void propertySet(ControllerProperty property, long value) throws NvmfException {
        FutureCommand set = initCommand(String.format("Property Set %s = %08xh", property, value), true,
                sqe -> PropertySetCommand.of(CommandId.of(0), property, value).encode(sqe));
        set.noData();
        runInit(admin, set);
    }

    /** nvme_enable_ctrl() + nvme_wait_ready(): CC.EN=1, then CSTS.RDY within CAP.TO. */
    private void enableController() throws NvmfException {
        int mps = capabilities.mpsmin(); // 4 KiB pages unless the controller needs larger (NVME_CTRL_PAGE_SHIFT 12)
        ControllerConfiguration cc = new ControllerConfiguration(true, 0, mps, 0, ControllerConfiguration.SHN_NONE,
                6, 4);
        propertySet(ControllerProperty.CC, Integer.toUnsignedLong(cc.toRaw()));
        long timeoutMillis = Math.max(500, capabilities.timeoutMillis());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long pause = 1;
        while (true) {
            ControllerStatus csts = ControllerStatus.fromRaw((int) propertyGet(ControllerProperty.CSTS));
            if (csts.fatal()) {
                throw new NvmfConnectException(name + ": controller fatal status (CSTS.CFS) while enabling");
            }
            if (csts.ready()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new NvmfTimeoutException(name + ": CSTS.RDY not set within CAP.TO (" + timeoutMillis + " ms)");
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new NvmfException(name + ": interrupted while waiting for CSTS.RDY", e);
            }
            pause = Math.min(pause * 2, 50);
        }
    }

    private void identifyNamespaces() throws NvmfException {
        for (long nsid : activeNamespaceIds()) {
            IdentifyNamespace ns = identifyNamespace(nsid);
            if (ns.nsze() == 0) {
                continue; // allocated but inactive
            }
            namespaces.put(nsid, new Namespace(this, nsid, ns));
        }
    }

    // ---- admin commands -------------------------------------------------------------------------------------

    /**
     * Identify CNS 02h from NSID 0 on, following the 1024-entry pages like nvme_scan_ns_list(), bounded by NN and
     * {@link NamespaceListReader#MAX_PAGES}: a controller that lies about its list fails this with an
     * {@link NvmfException} instead of keeping the host reading.
     */
    public List<Long> activeNamespaceIds() throws NvmfException {
        return NamespaceListReader.read(name, identify.nn(), start -> {
            MemorySegment data = MemorySegment.ofArray(new byte[ActiveNamespaceList.SIZE]);
            FutureCommand list = new FutureCommand("Identify Active Namespace List from nsid " + start, false, true,
                    sqe -> IdentifyCommand.create(sqe, IdentifyCommand.CNS_ACTIVE_NAMESPACE_LIST, start));
            list.copy(HostCommand.Direction.CONTROLLER_TO_HOST, data);
            runAdmin(list);
            return data;
        });
    }

    /** Identify Namespace (CNS 00h). */
    public IdentifyNamespace identifyNamespace(long nsid) throws NvmfException {
        MemorySegment data = MemorySegment.ofArray(new byte[IdentifyNamespace.SIZE]);
        FutureCommand id = new FutureCommand("Identify Namespace " + nsid, false, true,
                sqe -> IdentifyCommand.create(sqe, IdentifyCommand.CNS_NAMESPACE, nsid));
        id.copy(HostCommand.Direction.CONTROLLER_TO_HOST, data);
        runAdmin(id);
        return IdentifyNamespace.wrap(data);
    }

    /**
     * Get Log Page: {@code length} bytes from byte {@code offset}, fetched in chunks of at most 4096 bytes (libnvme's
     * NVME_LOG_PAGE_PDU_SIZE, so MDTS never matters), RAE set on every chunk but the last unless {@code rae}.
     */
    public MemorySegment getLogPage(int lid, long nsid, long offset, int length, boolean rae) throws NvmfException {
        if (length <= 0 || (length & 3) != 0 || (offset & 3) != 0) {
            throw new IllegalArgumentException("log page length/offset must be positive dword multiples");
        }
        MemorySegment out = MemorySegment.ofArray(new byte[length]);
        int done = 0;
        while (done < length) {
            int chunk = Math.min(ADMIN_BUFFER_SIZE, length - done);
            long lpo = offset + done;
            boolean chunkRae = rae || done + chunk < length;
            FutureCommand get = new FutureCommand(String.format("Get Log Page %02xh offset %d length %d", lid, lpo,
                    chunk), false, true,
                    sqe -> GetLogPageCommand.create(sqe, lid, nsid, chunk).offset(lpo).rae(chunkRae));
            get.copy(HostCommand.Direction.CONTROLLER_TO_HOST, out.asSlice(done, chunk));
            runAdmin(get);
            done += chunk;
        }
        return out;
    }

    private long runAdmin(FutureCommand command) throws NvmfException {
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

    private void requireUsable() throws ControllerLostException {
        if (state == ControllerState.DEAD || state == ControllerState.DELETING) {
            throw new ControllerLostException(name + ": controller is " + state.name().toLowerCase());
        }
    }

    // ---- keep-alive and recovery ----------------------------------------------------------------------------

    private void startKeepAlive() {
        long kato = options.keepAliveTimeout().toMillis();
        if (kato <= 0) {
            return;
        }
        // nvme_keep_alive_work_period(): KATO / 2 (without TBKAS).
        long period = Math.max(1, kato / 2);
        keepAlive = timers.scheduleAtFixedRate(this::sendKeepAlive, period, period, TimeUnit.MILLISECONDS);
    }

    private void sendKeepAlive() {
        if (state != ControllerState.LIVE) {
            return;
        }
        FutureCommand ka = new FutureCommand("Keep Alive", false, false, KeepAliveCommand::create);
        ka.noData();
        ka.future.whenComplete((r, e) -> {
            if (e != null && state == ControllerState.LIVE) {
                LOG.log(Level.WARNING, name + ": keep alive failed: " + e.getMessage());
            }
        });
        admin.submit(ka);
    }

    private void queueFailed(String reason) {
        synchronized (recoveryLock) {
            if (state != ControllerState.LIVE) {
                return; // during the connect sequence the failing command reports it; later states handle it
            }
            state = ControllerState.RECONNECTING;
            lostSinceNanos = System.nanoTime();
        }
        LOG.warning(name + ": connection lost (" + reason + "); reconnecting every "
                + options.reconnectDelay().toMillis() + " ms for up to " + options.ctrlLossTimeout().toSeconds() + " s");
        timers.execute(this::reconnectAttempt);
    }

    private void reconnectAttempt() {
        if (state != ControllerState.RECONNECTING) {
            return;
        }
        admin.disconnect();
        for (RdmaHostQueue q : ioQueues) {
            q.disconnect();
        }
        try {
            establish(false);
            synchronized (recoveryLock) {
                if (state != ControllerState.RECONNECTING) {
                    return;
                }
                requireAllQueuesLive(); // a queue that broke during the sequence: try again
                state = ControllerState.LIVE;
            }
            LOG.info(name + ": reconnected");
        } catch (NvmfException | RuntimeException e) {
            long lost = System.nanoTime() - lostSinceNanos;
            if (!options.ctrlLossTimeout().isNegative() && lost >= options.ctrlLossTimeout().toNanos()) {
                giveUp(e);
            } else {
                LOG.info(name + ": reconnect failed (" + e.getMessage() + "); next try in "
                        + options.reconnectDelay().toMillis() + " ms");
                timers.schedule(this::reconnectAttempt, options.reconnectDelay().toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Fails when a queue broke while the connect sequence went on (its failure was not acted on then). */
    private void requireAllQueuesLive() throws NvmfConnectException {
        if (!admin.isLive()) {
            throw new NvmfConnectException(name + ": admin queue broke during connect: " + admin.failureReason());
        }
        for (RdmaHostQueue q : ioQueues) {
            if (!q.isLive()) {
                throw new NvmfConnectException(name + ": " + q.qid() + " broke during connect: " + q.failureReason());
            }
        }
    }

    private void giveUp(Exception last) {
        synchronized (recoveryLock) {
            if (state != ControllerState.RECONNECTING) {
                return;
            }
            state = ControllerState.DEAD;
        }
        ControllerLostException lost = new ControllerLostException(name + ": controller at " + options.address()
                + " lost: no reconnect within ctrl-loss-tmo " + options.ctrlLossTimeout().toSeconds() + " s (last: "
                + last.getMessage() + ")", last);
        LOG.warning(lost.getMessage());
        admin.failPending(lost);
        for (RdmaHostQueue q : ioQueues) {
            q.failPending(lost);
            q.close();
        }
        admin.close();
    }

    // ---- queues and buffers for Namespace -------------------------------------------------------------------

    RdmaHostQueue ioQueue(int index) {
        return ioQueues.get(index);
    }

    RdmaHostQueue nextIoQueue() {
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
        return registerBuffer(bufferArena.allocate(size, 4096));
    }

    /** Registers caller-owned native memory for zero-copy I/O; the segment must outlive the buffer. */
    public IoBuffer registerBuffer(MemorySegment nativeSegment) throws NvmfException {
        try {
            // Local access and window binding only (issue 13, F6): RdmaHostQueue binds a window per command.
            MemoryRegion mr = pd.register(nativeSegment, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
            return new IoBuffer(mr);
        } catch (VerbsException e) {
            throw new NvmfException(name + ": cannot register " + nativeSegment.byteSize() + " bytes: " + e.getMessage(), e);
        }
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

    /** The active namespaces found at connect time, by NSID. */
    public List<Namespace> namespaces() {
        return List.copyOf(namespaces.values());
    }

    public Optional<Namespace> namespace(long nsid) {
        return Optional.ofNullable(namespaces.get(nsid));
    }

    /** The first active namespace, the usual target of a single-namespace subsystem. */
    public Namespace firstNamespace() throws NvmfException {
        return namespaces.values().stream().findFirst()
                .orElseThrow(() -> new NvmfException(name + ": the subsystem has no active namespace"));
    }

    /** Commands waiting for a slot on every queue (admin first): diagnostics and back-pressure tests. */
    public List<Integer> pendingPerQueue() {
        List<Integer> out = new ArrayList<>();
        out.add(admin.pendingCount());
        for (RdmaHostQueue q : ioQueues) {
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
        synchronized (recoveryLock) {
            before = state;
            if (before == ControllerState.DELETING) {
                return;
            }
            state = ControllerState.DELETING;
        }
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        if (before == ControllerState.LIVE && capabilities != null) {
            try {
                shutdown();
            } catch (NvmfException | RuntimeException e) {
                LOG.log(Level.FINE, name + ": shutdown notification failed: " + e.getMessage());
            }
        }
        for (RdmaHostQueue q : ioQueues) {
            q.close();
        }
        if (admin != null) {
            admin.close();
        }
        timers.shutdownNow();
        pd.close();
        if (ownsDevice) {
            device.close();
        }
        bufferArena.close();
        state = ControllerState.DEAD;
    }

    private void shutdown() throws NvmfException {
        ControllerConfiguration cc = new ControllerConfiguration(true, 0, capabilities.mpsmin(), 0,
                ControllerConfiguration.SHN_NORMAL, 6, 4);
        FutureCommand set = new FutureCommand("Property Set CC.SHN", true, false,
                sqe -> PropertySetCommand.of(CommandId.of(0), ControllerProperty.CC, Integer.toUnsignedLong(cc.toRaw()))
                        .encode(sqe));
        set.noData();
        admin.submit(set);
        Futures.await(set.future, 2000, set.describe());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() - deadline < 0) {
            FutureCommand get = new FutureCommand("Property Get CSTS", true, false,
                    sqe -> PropertyGetCommand.of(CommandId.of(0), ControllerProperty.CSTS).encode(sqe));
            get.noData();
            admin.submit(get);
            ControllerStatus csts = ControllerStatus.fromRaw((int) (long) Futures.await(get.future, 2000, "CSTS"));
            if (csts.shst() == ControllerStatus.SHST_COMPLETE) {
                return;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return name + "[" + options.address() + ", " + controllerId + ", " + state + ", " + ioQueues.size()
                + " I/O queues of " + ioQueueSize + "]";
    }

    String name() {
        return name;
    }

    CompletableFuture<Long> submitAdmin(FutureCommand command) {
        admin.submit(command);
        return command.future;
    }
}
