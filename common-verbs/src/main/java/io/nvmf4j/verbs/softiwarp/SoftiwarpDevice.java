package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectionManager;
import io.nvmf4j.verbs.DeviceAttributes;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The softiwarp device "softiwarp0": STag table, queue pair numbers, progress engines. */
public final class SoftiwarpDevice implements RdmaDevice {
    /** Limits. IRD/ORD 128 and max_sge 6 as siw (SIW_MAX_IRD_QP, SIW_MAX_ORD_QP, SIW_MAX_SGE); we do more. */
    static final int MAX_QP_WR = 16384;
    static final int MAX_SGE = 16;
    /** siw reports max_sge_rd 1; our Read sink may have as many SGEs as any send WR. */
    static final int MAX_SGE_RD = MAX_SGE;
    static final int MAX_IRD = 128;
    static final int MAX_ORD = 128;
    static final int MAX_MR = 65535;
    static final int MAX_CQE = 1 << 20;

    private static final AtomicInteger DEVICE_SEQUENCE = new AtomicInteger();

    private final SoftiwarpConfig config;
    private final int sequence = DEVICE_SEQUENCE.incrementAndGet();
    private final StagTable stagTable = new StagTable(MAX_MR);
    private final RejectedPeers rejectedPeers = new RejectedPeers();
    private final AtomicInteger nextQpNumber = new AtomicInteger(1);
    private final AtomicInteger nextEngine = new AtomicInteger();
    private final Set<SoftiwarpQueuePair> queuePairs = ConcurrentHashMap.newKeySet();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ProgressEngine[] engines;
    private final SoftiwarpConnectionManager connectionManager;
    private volatile boolean closed;

    SoftiwarpDevice(SoftiwarpConfig config) {
        this.config = config;
        this.engines = new ProgressEngine[config.engines()];
        this.connectionManager = new SoftiwarpConnectionManager(this);
    }

    SoftiwarpConfig config() {
        return config;
    }

    StagTable stagTable() {
        return stagTable;
    }

    /**
     * Peers this device refused or cut off, by reason (pending-connection caps, MPA and accept timeouts, invalid
     * requests, Terminates sent, failures): counters a target can export as metrics.
     */
    public RejectedPeers rejectedPeers() {
        return rejectedPeers;
    }

    @Override
    public Map<String, Long> rejectedPeerCounts() {
        return rejectedPeers.byLabel();
    }

    @Override
    public String name() {
        return SoftiwarpProvider.DEVICE_NAME;
    }

    @Override
    public String providerName() {
        return SoftiwarpProvider.NAME;
    }

    @Override
    public DeviceAttributes attributes() {
        return new DeviceAttributes("nvmf4j softiwarp (pure-Java iWARP, siw wire compatible)", Long.MAX_VALUE,
                1 << 20, MAX_QP_WR, MAX_SGE, MAX_SGE_RD, 1 << 16, MAX_CQE, MAX_MR, 1 << 16, MAX_IRD, MAX_ORD, 0);
    }

    @Override
    public ProtectionDomain allocatePd() throws VerbsException {
        checkOpen();
        SoftiwarpProtectionDomain pd = new SoftiwarpProtectionDomain(this);
        synchronized (resources) {
            resources.add(pd);
        }
        return pd;
    }

    @Override
    public CompletionQueue createCompletionQueue(int entries) throws VerbsException {
        checkOpen();
        if (entries < 1 || entries > MAX_CQE) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "CQ size " + entries + " outside 1.." + MAX_CQE);
        }
        SoftiwarpCompletionQueue cq = new SoftiwarpCompletionQueue(entries, config.cqSpinNanos(), config.inlineProgress());
        synchronized (resources) {
            resources.add(cq);
        }
        return cq;
    }

    @Override
    public ConnectionManager connectionManager() {
        return connectionManager;
    }

    SoftiwarpConnectionManager connectionManagerImpl() {
        return connectionManager;
    }

    /** Creates a queue pair (not yet connected). */
    SoftiwarpQueuePair createQueuePair(SoftiwarpProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                                       QueuePairAttributes attrs) throws VerbsException {
        checkOpen();
        if (!(sendCq instanceof SoftiwarpCompletionQueue scq) || !(recvCq instanceof SoftiwarpCompletionQueue rcq)) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "completion queues of another provider");
        }
        if (attrs.maxSendWr() > MAX_QP_WR || attrs.maxRecvWr() > MAX_QP_WR || attrs.maxSendSge() > MAX_SGE
                || attrs.maxRecvSge() > MAX_SGE || attrs.ird() > MAX_IRD || attrs.ord() > MAX_ORD) {
            throw new VerbsException(VerbsErrorCode.INVALID_ARGUMENT, "queue pair attributes above device limits: "
                    + attrs);
        }
        SoftiwarpQueuePair qp = new SoftiwarpQueuePair(this, nextQpNumber.getAndIncrement(), pd, scq, rcq, attrs,
                config);
        queuePairs.add(qp);
        return qp;
    }

    void forget(SoftiwarpQueuePair qp) {
        queuePairs.remove(qp);
    }

    /** The engine the next connection goes to (round-robin), started on first use. */
    ProgressEngine engine() throws VerbsException {
        int i = Math.floorMod(nextEngine.getAndIncrement(), engines.length);
        synchronized (engines) {
            checkOpen();
            if (engines[i] == null) {
                try {
                    engines[i] = new ProgressEngine(engineThreadNamePrefix() + i, config.engineSpinNanos());
                } catch (IOException e) {
                    throw new VerbsException(VerbsErrorCode.IO_ERROR, "cannot start progress engine", e);
                }
            }
            return engines[i];
        }
    }

    /** Progress engine threads of this device are named this prefix plus their index. */
    String engineThreadNamePrefix() {
        return "softiwarp-engine-" + sequence + "-";
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsErrorCode.CLOSED, "device " + name() + " is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        connectionManager.closeListeners();
        for (SoftiwarpQueuePair qp : List.copyOf(queuePairs)) {
            qp.close();
        }
        synchronized (engines) {
            for (ProgressEngine e : engines) {
                if (e != null) {
                    e.shutdown();
                }
            }
        }
        List<AutoCloseable> toClose;
        synchronized (resources) {
            toClose = new ArrayList<>(resources);
            resources.clear();
        }
        for (AutoCloseable r : toClose) {
            try {
                r.close();
            } catch (Exception ignored) {
                // closing best effort
            }
        }
    }
}
