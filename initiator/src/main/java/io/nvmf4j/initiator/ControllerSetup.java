package io.nvmf4j.initiator;

import io.nvmf4j.protocol.CommandId;
import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.QueueId;
import io.nvmf4j.protocol.QueueLimits;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
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
import io.nvmf4j.verbs.VerbsException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Controller bring-up, one sequence for the first connect and every reconnect, as Linux
 * {@code nvme_rdma_setup_ctrl(ctrl, new)}: {@link #run} names the steps; {@code fresh} creates the queues and scans
 * the namespaces, a reconnect reuses them and requires the controller to grant at least as much as before. The
 * commands of the sequence go by {@link HostQueue#submitInit} and fail rather than wait for a reconnect.
 */
final class ControllerSetup {

    /** The controller's log, as before the split (operators and tests filter on it). */
    private static final Logger LOG = System.getLogger(NvmeController.class.getName());
    private static final int ADMIN_BUFFERS = 4;

    private final NvmeController c;
    private final ConnectOptions options;
    private final String name;

    ControllerSetup(NvmeController controller) {
        this.c = controller;
        this.options = controller.options();
        this.name = controller.name();
    }

    /** DH-HMAC-CHAP after each Connect (nvmf_connect_admin_queue() / nvmf_connect_io_queue()). */
    private void authenticate(HostQueue queue, long connectResult) throws NvmfException {
        c.authenticator().afterConnect(queue, connectResult, this::runInit);
    }

    /** The whole sequence; {@code fresh} on the first connect, false on a reconnect. */
    void run(boolean fresh) throws NvmfException {
        if (fresh) {
            c.admin = newQueue("admin", QueueId.ADMIN, QueueLimits.ADMIN_QUEUE_SIZE,
                    NvmeController.ADMIN_BUFFER_SIZE, ADMIN_BUFFERS);
        }
        connectAdminQueue();          // nvme_rdma_configure_admin_queue()
        enableController();           // nvme_enable_ctrl()
        identifyController();         // nvme_init_ctrl_finish() -> nvme_init_identify()
        if (options.isDiscovery() || options.ioQueues() == 0) {
            return;
        }
        int count = negotiateQueueCount(); // nvme_set_queue_count()
        int queueSize = ioQueueSize();
        if (fresh) {
            createIoQueues(count, queueSize);
        } else {
            requireSameIoQueues(count, queueSize);
        }
        connectIoQueues();            // nvme_rdma_configure_io_queues()
        if (fresh) {
            scanNamespaces();         // nvme_scan_work()
        }
    }

    // ---- steps ----------------------------------------------------------------------------------------------

    /** nvmf_connect_admin_queue()/nvmf_connect_io_queue(): CATTR asks SQ flow control off with --disable-sqflow. */
    private ConnectCommand flowControl(ConnectCommand connect) {
        return options.disableSqFlow() ? connect.withSqFlowControlDisabled() : connect;
    }

    /** RDMA connect, then Fabrics Connect (NVMe-oF 1.1, 3.3) with CNTLID FFFFh: the target allocates one. */
    private void connectAdminQueue() throws NvmfException {
        HostQueue admin = c.admin;
        admin.connect(options.address(), options.connectTimeout());
        long katoMillis = options.keepAliveTimeout().toMillis();
        FutureRequest connect = initRequest("Connect admin queue to " + options.subsystemNqn(), true,
                sqe -> flowControl(ConnectCommand.adminQueue(CommandId.of(0), nullSgl(), admin.sqsize(), katoMillis))
                        .encode(sqe));
        connect.copy(NvmeRequest.Direction.HOST_TO_CONTROLLER, connectData(ControllerId.DYNAMIC));
        long result = runInit(admin, connect);
        c.controllerId = ConnectResponse.controllerId((int) result);
        authenticate(admin, result);
        admin.markLive();
    }

    /** CAP, CC.EN = 1 (CSS NVM, MPS, IOSQES 6, IOCQES 4), CSTS.RDY within CAP.TO (CFS is an error), VS. */
    private void enableController() throws NvmfException {
        c.capabilities = ControllerCapabilities.fromRaw(propertyGet(ControllerProperty.CAP));
        int mps = c.capabilities.mpsmin(); // 4 KiB pages unless the controller needs larger (NVME_CTRL_PAGE_SHIFT 12)
        ControllerConfiguration cc = new ControllerConfiguration(true, 0, mps, 0, ControllerConfiguration.SHN_NONE,
                6, 4);
        propertySet(ControllerProperty.CC, Integer.toUnsignedLong(cc.toRaw()));
        long timeoutMillis = Math.max(500, c.capabilities.timeoutMillis());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long pause = 1;
        while (true) {
            ControllerStatus csts = ControllerStatus.fromRaw((int) propertyGet(ControllerProperty.CSTS));
            if (csts.fatal()) {
                throw new NvmfConnectException(name + ": controller fatal status (CSTS.CFS) while enabling");
            }
            if (csts.ready()) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new NvmfTimeoutException(name + ": CSTS.RDY not set within CAP.TO (" + timeoutMillis + " ms)");
            }
            sleep(pause, "waiting for CSTS.RDY");
            pause = Math.min(pause * 2, 50);
        }
        c.version = NvmeVersion.fromRaw((int) propertyGet(ControllerProperty.VS));
    }

    /**
     * Identify Controller: keyed SGLs are mandatory (SGLS bit 2, "Mandatory keyed sgls are not supported!" in
     * nvme_rdma_setup_ctrl()), MDTS bounds one command's data, IOCCSZ/ICDOFF and SGLS bit 20 decide in-capsule data.
     */
    private void identifyController() throws NvmfException {
        MemorySegment idData = MemorySegment.ofArray(new byte[IdentifyController.SIZE]);
        FutureRequest id = initRequest("Identify Controller", false,
                sqe -> IdentifyCommand.create(sqe, IdentifyCommand.CNS_CONTROLLER, 0));
        id.copy(NvmeRequest.Direction.CONTROLLER_TO_HOST, idData);
        runInit(c.admin, id);
        IdentifyController identify = IdentifyController.wrap(idData);
        c.identify = identify;
        if (!options.isTcp() && (identify.sgls() & IdentifyController.SGLS_KEYED) == 0) {
            throw new NvmfConnectException(name + ": the controller does not support keyed SGLs (SGLS bit 2), "
                    + "which NVMe/RDMA requires");
        }
        int queueSize = ioQueueSize(options.queueSize(), c.capabilities, identify);
        if (queueSize < 2) {
            // CAP.MQES and MAXCMD are the controller's word: a queue needs two entries at least (a full queue
            // leaves one empty, NVMe Base 2.0 section 3.3.1.5), so 0 or 1 cannot carry a command
            throw new NvmfConnectException(name + ": the controller allows I/O queues of " + queueSize
                    + " entries (CAP.MQES " + c.capabilities.mqes() + ", MAXCMD " + identify.maxcmd()
                    + "); at least 2 are needed");
        }
        c.maxTransferBytes = maxTransferBytes(identify.mdts(), c.capabilities.mpsmin());
        boolean offsetSgl = (identify.sgls() & IdentifyController.SGLS_OFFSET) != 0;
        if (identify.icdoff() != 0 && offsetSgl && options.inCapsuleData()) {
            LOG.log(Level.WARNING, name + ": ICDOFF " + identify.icdoff() + " is not supported (as in Linux); "
                    + "writes go by keyed SGL only");
        }
        c.inCapsuleBytes = options.isTcp()
                ? tcpInCapsuleBytes(identify, options.inCapsuleData(), options.bufferSize())
                : inCapsuleBytes(identify, options.inCapsuleData(), options.bufferSize());
    }

    /** In-capsule data a write may carry: none unless offset SGLs are supported with ICDOFF 0, at most a buffer. */
    static int inCapsuleBytes(IdentifyController identify, boolean wanted, int bufferSize) {
        boolean offsetSgl = (identify.sgls() & IdentifyController.SGLS_OFFSET) != 0;
        return wanted && offsetSgl && identify.icdoff() == 0
                ? (int) Math.min(identify.inCapsuleDataSize(), bufferSize) : 0;
    }

    /**
     * NVMe/TCP carries in-capsule data without an offset SGL capability check: Linux
     * {@code nvme_tcp_inline_data_size()} is IOCCSZ * 16 less the SQE on I/O queues (ICDOFF must be 0, as
     * {@code nvme_tcp_setup_ctrl()} requires); at most a buffer here.
     */
    static int tcpInCapsuleBytes(IdentifyController identify, boolean wanted, int bufferSize) {
        return wanted && identify.icdoff() == 0 ? (int) Math.min(identify.inCapsuleDataSize(), bufferSize) : 0;
    }

    /**
     * MDTS (a power of two in units of CAP.MPSMIN pages, 0 for no limit) as bytes, bounded by the 24-bit keyed SGL
     * length less a page, with saturating arithmetic: the controller's numbers are any a byte can hold (MDTS 52 with
     * 4 KiB pages is 2^64 bytes), and as Linux's {@code nvme_mps_to_sectors()} and {@code min_not_zero()} do, a limit
     * too large to represent is no limit rather than a wrapped one. Never below one page.
     */
    static long maxTransferBytes(int mdts, int mpsmin) {
        int pageShift = 12 + mpsmin;                 // MPSMIN is 4 bits: at most 2^27-byte pages
        long pageSize = 1L << pageShift;
        long fromMdts = mdts == 0 || mdts + pageShift >= Long.SIZE - 1 ? Long.MAX_VALUE : 1L << (mdts + pageShift);
        long sglLimit = Math.max(pageSize, KeyedSglDescriptor.MAX_LENGTH + 1L - pageSize);
        return Math.min(fromMdts, sglLimit);
    }

    /** Set Features Number of Queues: as many as asked, at most what the controller grants. */
    private int negotiateQueueCount() throws NvmfException {
        int wanted = options.ioQueues();
        FutureRequest nq = initRequest("Set Features Number of Queues", false,
                sqe -> SetFeaturesCommand.numberOfQueues(sqe, new NumberOfQueues(wanted, wanted)));
        nq.noData();
        NumberOfQueues granted = NumberOfQueues.fromDword((int) runInit(c.admin, nq));
        int count = Math.min(wanted, Math.min(granted.submissionQueues(), granted.completionQueues()));
        if (count < 1) {
            throw new NvmfConnectException(name + ": the controller granted no I/O queues");
        }
        return count;
    }

    /**
     * Entries per I/O queue: the option, bounded by CAP.MQES (0's based) and MAXCMD, as
     * nvme_rdma_configure_admin_queue() and nvme_init_identify() bound ctrl->sqsize.
     */
    private int ioQueueSize() {
        return ioQueueSize(options.queueSize(), c.capabilities, c.identify);
    }

    static int ioQueueSize(int wanted, ControllerCapabilities capabilities, IdentifyController identify) {
        int queueSize = Math.min(wanted, capabilities.mqes() + 1);
        int maxcmd = identify.maxcmd();
        return maxcmd > 0 ? Math.min(queueSize, maxcmd) : queueSize;
    }

    private void createIoQueues(int count, int queueSize) throws NvmfException {
        c.ioQueueSize = queueSize;
        for (int q = 1; q <= count; q++) {
            c.ioQueues.add(newQueue("io" + q, QueueId.of(q), queueSize, options.bufferSize(),
                    options.buffersPerQueue()));
        }
    }

    private void requireSameIoQueues(int count, int queueSize) throws NvmfConnectException {
        if (count < c.ioQueues.size() || queueSize < c.ioQueueSize) {
            throw new NvmfConnectException(name + ": after reconnect the controller grants " + count
                    + " queues of " + queueSize + " entries, fewer than the " + c.ioQueues.size() + " of "
                    + c.ioQueueSize + " in use");
        }
    }

    /** Per I/O queue: RDMA connect and Fabrics Connect with the admin queue's CNTLID and the queue's SQSIZE. */
    private void connectIoQueues() throws NvmfException {
        for (HostQueue queue : c.ioQueues) {
            queue.inCapsuleCapacity(c.inCapsuleBytes);
            queue.connect(options.address(), options.connectTimeout());
            FutureRequest qc = initRequest("Connect " + queue.qid(), true,
                    sqe -> flowControl(ConnectCommand.ioQueue(CommandId.of(0), nullSgl(), queue.qid(), queue.sqsize()))
                            .encode(sqe));
            qc.copy(NvmeRequest.Direction.HOST_TO_CONTROLLER, connectData(c.controllerId));
            authenticate(queue, runInit(queue, qc));
            queue.markLive();
        }
    }

    /** The active namespace list (CNS 02h, paged) and each namespace (CNS 00h); NSZE 0 is allocated but inactive. */
    private void scanNamespaces() throws NvmfException {
        for (long nsid : c.activeNamespaceIds()) {
            IdentifyNamespace ns = c.identifyNamespace(nsid);
            if (ns.nsze() != 0) {
                c.namespaces.put(nsid, new Namespace(c, nsid, AdminQueries.usable(name, nsid, ns, c.maxTransferBytes)));
            }
        }
    }

    /** Like nvme_shutdown_ctrl(): CC.SHN normal, then CSTS.SHST complete within a bounded wait. */
    void shutdown() throws NvmfException {
        ControllerConfiguration cc = new ControllerConfiguration(true, 0, c.capabilities.mpsmin(), 0,
                ControllerConfiguration.SHN_NORMAL, 6, 4);
        FutureRequest set = new FutureRequest("Property Set CC.SHN", true, false,
                sqe -> PropertySetCommand.of(CommandId.of(0), ControllerProperty.CC, Integer.toUnsignedLong(cc.toRaw()))
                        .encode(sqe));
        set.noData();
        c.admin.submit(set);
        Futures.await(set.future, 2000, set.describe());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() - deadline < 0) {
            FutureRequest get = new FutureRequest("Property Get CSTS", true, false,
                    sqe -> PropertyGetCommand.of(CommandId.of(0), ControllerProperty.CSTS).encode(sqe));
            get.noData();
            c.admin.submit(get);
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

    // ---- commands of the sequence ---------------------------------------------------------------------------

    private HostQueue newQueue(String queueName, QueueId qid, int queueSize, int bufferSize, int buffers)
            throws NvmfException {
        HostTransport transport = Transports.of(options);
        if (!transport.usesRdmaDevice()) {
            return transport.newQueue(name + "-" + queueName, qid, queueSize, options, bufferSize, buffers,
                    spinBudgetOf(qid), (queue, reason) -> c.recovery.queueFailed(reason));
        }
        try {
            return transport.newQueue(name + "-" + queueName, qid, queueSize, c.device, c.pd, bufferSize,
                    buffers, options.commandTimeout(), spinBudgetOf(qid),
                    (queue, reason) -> c.recovery.queueFailed(reason));
        } catch (VerbsException e) {
            throw new NvmfConnectException(name + ": cannot register queue memory: " + e.getMessage(), e);
        }
    }

    /**
     * The admin queue's completion thread blocks at once: its commands are rare (Keep Alive every few seconds once
     * connected) and none is latency-bound, as the Linux host, which polls only I/O queues. Spinning it with the
     * I/O queues' budget put a second busy thread on an application's core: with {@code perf --spin-us 1000000}
     * pinned to one core, the admin and I/O pollers took the core from each other 25,000 times a second.
     */
    private Duration spinBudgetOf(QueueId qid) {
        return qid.isAdmin() ? Duration.ZERO : options.spinBudget();
    }

    private MemorySegment connectData(ControllerId cntlid) {
        MemorySegment data = MemorySegment.ofArray(new byte[ConnectData.SIZE]);
        new ConnectData(options.host().hostId(), cntlid, options.subsystemNqn(), options.host().hostNqn()).encode(data);
        return data;
    }

    private static KeyedSglDescriptor nullSgl() {
        return new KeyedSglDescriptor(0, 0, 0, false);
    }

    private static FutureRequest initRequest(String what, boolean fabrics, Consumer<SubmissionQueueEntry> encoder) {
        return new FutureRequest(what, fabrics, false, encoder);
    }

    private long runInit(HostQueue queue, FutureRequest command) throws NvmfException {
        queue.submitInit(command);
        return Futures.await(command.future, options.commandTimeout().toMillis() + 1000, command.describe());
    }

    private long propertyGet(ControllerProperty property) throws NvmfException {
        FutureRequest get = initRequest("Property Get " + property, true,
                sqe -> PropertyGetCommand.of(CommandId.of(0), property).encode(sqe));
        get.noData();
        return runInit(c.admin, get);
    }

    private void propertySet(ControllerProperty property, long value) throws NvmfException {
        FutureRequest set = initRequest(String.format("Property Set %s = %08xh", property, value), true,
                sqe -> PropertySetCommand.of(CommandId.of(0), property, value).encode(sqe));
        set.noData();
        runInit(c.admin, set);
    }

    private void sleep(long millis, String what) throws NvmfException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NvmfException(name + ": interrupted while " + what, e);
        }
    }
}
