package io.nvmf4j.target;

import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.fabrics.ControllerCapabilities;
import io.nvmf4j.protocol.fabrics.ControllerConfiguration;
import io.nvmf4j.protocol.fabrics.ControllerProperty;
import io.nvmf4j.protocol.fabrics.ControllerStatus;
import io.nvmf4j.target.backend.BackendException;
import io.nvmf4j.target.reservation.HostId;
import io.nvmf4j.target.reservation.ReservationLog;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One controller of a subsystem, created by an admin-queue Connect (nvmet's {@code struct nvmet_ctrl}, core.c):
 * the controller properties CAP/VS/CC/CSTS and their state machine (nvmet_update_cc()), the features a host can
 * get and set, the keep-alive timer, asynchronous events, the error log and its queues.
 *
 * <p>Lifetime: it lives while at least one of its queues does. When the last queue is destroyed it leaves the
 * subsystem and its controller ID is free again (nvmet_ctrl_put()).
 */
public final class Controller {

    private static final System.Logger LOG = System.getLogger(Controller.class.getName());

    // Controller property offsets (NVMe Base 2.0, 3.1.4; NVMe-oF 1.1, 3.5 Property Get/Set).
    public static final int REG_CAP = ControllerProperty.CAP.offset();
    public static final int REG_VS = ControllerProperty.VS.offset();
    public static final int REG_CC = ControllerProperty.CC.offset();
    public static final int REG_CSTS = ControllerProperty.CSTS.offset();

    public static final int CC_ENABLE = 1;
    public static final int CSTS_RDY = 1;
    public static final int CSTS_CFS = 1 << 1;
    public static final int CSTS_SHST_MASK = 0x3 << 2;
    public static final int CSTS_SHST_OCCURRING = ControllerStatus.SHST_OCCURRING << 2;
    public static final int CSTS_SHST_COMPLETE = ControllerStatus.SHST_COMPLETE << 2;

    /** CAP.TO in 500 ms units: 7.5 s, as nvmet (15). */
    public static final int CAP_TIMEOUT_UNITS = 15;
    /** A discovery controller connected with KATO 0 still times out (NVMET_DISC_KATO_MS). */
    public static final int DISCOVERY_KATO_MS = 120_000;

    private final NvmeTarget target;
    private final Subsystem subsystem;
    private final Port port;
    private final int cntlid;
    private final String hostNqn;
    private final byte[] hostId;
    /** The host identifier as reservations key it, read by the I/O path's access check without an array. */
    final long hostIdHigh;
    final long hostIdLow;
    private final ReservationLog reservationLog = new ReservationLog();
    private final long cap;
    private final Map<Integer, SubmissionQueue> queues = new ConcurrentHashMap<>();
    private final ErrorLog errorLog = new ErrorLog();
    private final AsyncEvents asyncEvents;

    // written under the lock, read without it by the I/O path (checkControllerStatus, write's FUA decision)
    private volatile int cc;
    private volatile int csts;
    private volatile boolean volatileWriteCacheEnabled = true;
    private int katoSeconds;
    private ScheduledFuture<?> keepAliveTimer;
    private volatile boolean trafficSinceCheck;
    private volatile boolean released;
    /** The host's DH-HMAC-CHAP keys, taken at the admin Connect; null when it connects without authentication. */
    private volatile DhchapKeys dhchapKeys;

    Controller(NvmeTarget target, Subsystem subsystem, Port port, int cntlid, String hostNqn, byte[] hostId,
            long katoMillis) {
        this.target = target;
        this.subsystem = subsystem;
        this.port = port;
        this.cntlid = cntlid;
        this.hostNqn = hostNqn;
        this.hostId = hostId.clone();
        HostId host = HostId.of(this.hostId);
        this.hostIdHigh = host.high();
        this.hostIdLow = host.low();
        this.asyncEvents = new AsyncEvents(subsystem.isDiscovery()
                ? AsyncEvents.AEN_DISCOVERY_CHANGE : AsyncEvents.AEN_NS_ATTRIBUTE | AsyncEvents.AEN_ANA_CHANGE);
        this.cap = computeCap(port);
        long kato = katoMillis;
        if (subsystem.isDiscovery() && kato == 0) {
            kato = DISCOVERY_KATO_MS;
        }
        // keep-alive timeout in whole seconds, rounded up (nvmet: DIV_ROUND_UP(kato, 1000))
        this.katoSeconds = (int) ((kato + 999) / 1000);
    }

    /**
     * CAP (nvmet_init_cap()): MQES from the port's queue size (0's based), CQR set (NVMe-oF requires
     * physically contiguous queues), TO 7.5 s, DSTRD 0, CSS bit 37 = NVM command set, MPSMIN = MPSMAX = 0 (4 KiB).
     */
    static long computeCap(Port port) {
        return new ControllerCapabilities(port.maxQueueSize() - 1, true, 0, CAP_TIMEOUT_UNITS, 0, false,
                ControllerCapabilities.CSS_NVM, false, 0, 0).toRaw();
    }

    public int id() {
        return cntlid;
    }

    public Subsystem subsystem() {
        return subsystem;
    }

    public Port port() {
        return port;
    }

    public String hostNqn() {
        return hostNqn;
    }

    /** Whether {@code id} is this controller's Host Identifier (constant time: it is compared against peer input). */
    boolean hostIdMatches(byte[] id) {
        return java.security.MessageDigest.isEqual(hostId, id);
    }

    public byte[] hostId() {
        return hostId.clone();
    }

    /** The DH-HMAC-CHAP keys every queue of this controller must prove, or null. */
    DhchapKeys dhchapKeys() {
        return dhchapKeys;
    }

    void dhchapKeys(DhchapKeys keys) {
        this.dhchapKeys = keys;
    }

    /** The Host Identifier reservations are keyed by. */
    HostId host() {
        return new HostId(hostIdHigh, hostIdLow);
    }

    /** This controller's Reservation Notification log (page 80h). */
    ReservationLog reservationLog() {
        return reservationLog;
    }

    public long cap() {
        return cap;
    }

    /** Maximum Queue Entries Supported, 0's based (CAP bits 15:0). */
    public int mqes() {
        return (int) (cap & 0xFFFF);
    }

    public synchronized int cc() {
        return cc;
    }

    public synchronized int csts() {
        return csts;
    }

    public boolean isReady() {
        return (csts & CSTS_RDY) != 0;
    }

    public boolean isEnabled() {
        return (cc & CC_ENABLE) != 0;
    }

    public ErrorLog errorLog() {
        return errorLog;
    }

    AsyncEvents asyncEvents() {
        return asyncEvents;
    }

    public synchronized int keepAliveTimeoutSeconds() {
        return katoSeconds;
    }

    public boolean volatileWriteCacheEnabled() {
        return volatileWriteCacheEnabled;
    }

    synchronized void volatileWriteCacheEnabled(boolean enabled) {
        volatileWriteCacheEnabled = enabled;
    }

    /** The queue with {@code qid}, or null. */
    public SubmissionQueue queue(int qid) {
        return queues.get(qid);
    }

    public List<SubmissionQueue> queues() {
        return List.copyOf(queues.values());
    }

    // ---- CC / CSTS state machine ----

    /**
     * A Property Set of CC (nvmet_update_cc()): EN 0→1 starts the controller (CSTS.RDY, or CSTS.CFS when CC
     * asks for queue entry sizes, page size, arbitration or a command set we do not have); EN 1→0 resets it
     * (RDY clear, CC cleared); SHN set starts a normal shutdown: CSTS.SHST = 01b (processing) while the namespaces'
     * volatile caches are flushed, then 10b (complete); SHN clear clears SHST.
     */
    void updateCc(int newCc) {
        boolean shutdown = false;
        synchronized (this) {
            int old = cc;
            cc = newCc;
            if (enabled(newCc) && !enabled(old)) {
                start();
            }
            if (!enabled(newCc) && enabled(old)) {
                clear();
            }
            if (shn(newCc) != 0 && shn(old) == 0) {
                clear();
                csts = (csts & ~CSTS_SHST_MASK) | CSTS_SHST_OCCURRING;
                shutdown = true;
            }
            if (shn(newCc) == 0 && shn(old) != 0) {
                csts &= ~CSTS_SHST_MASK;
            }
        }
        if (shutdown) {
            LOG.log(Level.INFO, "controller {0} ({1}): normal shutdown requested by {2}", cntlid, subsystem.nqn(),
                    hostNqn);
            target.timers().execute(this::completeShutdown);
        }
    }

    private void completeShutdown() {
        for (SubsystemNamespace ns : subsystem.activeNamespaces()) {
            try {
                ns.backend().flush();
            } catch (BackendException e) {
                LOG.log(Level.WARNING, "flush of {0} during shutdown failed: {1}", ns, e.getMessage());
            }
        }
        synchronized (this) {
            if ((csts & CSTS_SHST_MASK) == CSTS_SHST_OCCURRING) {
                csts = (csts & ~CSTS_SHST_MASK) | CSTS_SHST_COMPLETE;
            }
        }
    }

    /** nvmet_start_ctrl(). Caller holds the lock. */
    private void start() {
        ControllerConfiguration c = ControllerConfiguration.fromRaw(cc);
        if (c.iosqes() != 6 || c.iocqes() != 4 || c.mps() != 0 || c.ams() != 0 || c.css() != 0) {
            LOG.log(Level.WARNING, "controller {0}: {1} not supported; CSTS.CFS", cntlid, c);
            csts = CSTS_CFS;
            return;
        }
        csts = CSTS_RDY;
        // Reset the keep-alive timer on enable: hosts that died before enabling are still cleaned up.
        if (katoSeconds > 0) {
            scheduleKeepAlive();
        }
    }

    /** nvmet_clear_ctrl(). Caller holds the lock. */
    private void clear() {
        csts &= ~CSTS_RDY;
        cc = 0;
    }

    private static boolean enabled(int cc) {
        return (cc & CC_ENABLE) != 0;
    }

    private static int shn(int cc) {
        return ControllerConfiguration.fromRaw(cc).shn();
    }

    // ---- keep-alive ----

    /** Starts the keep-alive timer after Connect (nvmet_start_keep_alive_timer()). */
    synchronized void startKeepAlive() {
        if (katoSeconds > 0) {
            LOG.log(Level.DEBUG, "controller {0}: keep-alive timeout {1} s", cntlid, katoSeconds);
            scheduleKeepAlive();
        }
    }

    /** A Keep Alive command: restart the timer (mod_delayed_work in nvmet_execute_keep_alive()). */
    synchronized void keepAlive() {
        if (katoSeconds > 0) {
            scheduleKeepAlive();
        }
    }

    /** Set Features Keep Alive Timer: stop, take the new value (rounded up to seconds), restart. */
    synchronized void keepAliveTimeout(long millis) {
        stopKeepAlive();
        katoSeconds = (int) ((millis + 999) / 1000);
        startKeepAlive();
    }

    /** Any command counts as keep-alive traffic (TBKAS, Identify Controller CTRATT bit 6; reset_tbkas). */
    void keepAliveTraffic() {
        if (!trafficSinceCheck) { // a volatile read per command; the store only once per keep-alive period
            trafficSinceCheck = true;
        }
    }

    private void scheduleKeepAlive() {
        if (keepAliveTimer != null) {
            keepAliveTimer.cancel(false);
        }
        trafficSinceCheck = false;
        if (released) {
            return;
        }
        try {
            keepAliveTimer = target.timers().schedule(this::keepAliveExpired, katoSeconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            keepAliveTimer = null; // target shutting down
        }
    }

    synchronized void stopKeepAlive() {
        if (keepAliveTimer != null) {
            keepAliveTimer.cancel(false);
            keepAliveTimer = null;
        }
    }

    /** nvmet_keep_alive_timer(): traffic since the last check re-arms; silence is a fatal error. */
    private void keepAliveExpired() {
        synchronized (this) {
            if (released) {
                return;
            }
            if (trafficSinceCheck) {
                scheduleKeepAlive();
                return;
            }
        }
        LOG.log(Level.WARNING, "controller {0} ({1}, host {2}): keep-alive timer ({3} s) expired", cntlid,
                subsystem.nqn(), hostNqn, katoSeconds);
        fatalError("keep-alive timeout");
    }

    /**
     * nvmet_ctrl_fatal_error(): CSTS.CFS, then every queue's transport is told to disconnect
     * (nvmet_fabrics_ops.delete_ctrl). Happens once.
     */
    public void fatalError(String reason) {
        synchronized (this) {
            if ((csts & CSTS_CFS) != 0) {
                return;
            }
            csts |= CSTS_CFS;
            stopKeepAlive();
        }
        LOG.log(Level.WARNING, "controller {0} ({1}, host {2}): fatal error ({3}); disconnecting its queues",
                cntlid, subsystem.nqn(), hostNqn, reason);
        for (SubmissionQueue q : queues.values()) {
            q.transport().disconnect();
        }
    }

    // ---- queues ----

    /** Registers an installed queue; false when the QID is already taken (Connect: Command Sequence Error). */
    boolean addQueue(int qid, SubmissionQueue queue) {
        return queues.putIfAbsent(qid, queue) == null;
    }

    /** nvmet_sq_destroy() for one of ours; the last queue frees the controller. */
    void queueDestroyed(SubmissionQueue queue) {
        int qid = queue.qid().value();
        if (!queues.remove(qid, queue)) {
            return;
        }
        if (qid == 0) {
            asyncEvents.failAll();
        }
        if (queues.isEmpty()) {
            release();
        }
    }

    private void release() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            stopKeepAlive();
        }
        subsystem.unregisterController(this);
        LOG.log(Level.INFO, "controller {0} of {1} for {2} released", cntlid, subsystem.nqn(), hostNqn);
    }

    public boolean isReleased() {
        return released;
    }

    // ---- events ----

    void namespaceChanged(long nsid) {
        asyncEvents.namespaceChanged(nsid);
    }

    void discoveryLogChanged() {
        asyncEvents.discoveryLogChanged();
    }

    @Override
    public String toString() {
        return "controller " + cntlid + " of " + subsystem.nqn() + " for " + hostNqn;
    }
}
