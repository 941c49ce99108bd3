package io.nvmf4j.initiator;

import io.nvmf4j.protocol.admin.AsyncEvent;
import io.nvmf4j.protocol.admin.AsyncEventRequestCommand;
import io.nvmf4j.protocol.admin.FeatureId;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.SetFeaturesCommand;
import io.nvmf4j.protocol.log.ChangedNamespaceList;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.protocol.log.LogPageId;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Asynchronous events, host side, as Linux {@code drivers/nvme/host/core.c}: after the controller goes live it
 * enables the notices it handles (Set Features Asynchronous Event Configuration with OAES &amp;
 * {@code NVME_AEN_SUPPORTED}, {@code nvme_enable_aen()}) and keeps one Asynchronous Event Request outstanding
 * ({@code nvme_async_event_work()}; NVMe Base 2.0, 5.2). A completion is handled like
 * {@code nvme_complete_async_event()}: a Namespace Attribute Changed notice (type 2h, information 00h) reads the
 * Changed Namespace List (log page 04h, which clears the event at the controller) and rescans every namespace
 * ({@code nvme_scan_work()}: like Linux it does not trust the list alone, another reader may have taken it), so new
 * namespaces appear, removed ones go and resized ones show their new size; an ANA change notice (information 03h)
 * reads the ANA log page (0Ch) and hands it to the ANA listeners ({@code nvme_ana_work()}); other events are logged once per kind
 * ({@code "async event result %08x"}). The request is sent again after every event, and after a reconnect
 * ({@code nvme_start_ctrl()}, which also rescans). A request that completes with an error status is not re-armed
 * (Linux returns without requeueing).
 *
 * <p>Threads: the completion runs on the admin queue's completion thread, which must not wait for admin commands,
 * so handling moves to this controller's event thread ({@code nvmf4j-aen-PORT}); listeners run there too.
 */
final class AsyncEventHandler {

    private static final Logger LOG = System.getLogger(NvmeController.class.getName());
    /** OAES / Asynchronous Event Configuration bit 8: Namespace Attribute Notices. */
    static final int AEN_NS_ATTRIBUTE = 1 << 8;
    /** Linux's NVME_AEN_SUPPORTED: namespace attribute, firmware activation, ANA change, discovery log change. */
    static final int AEN_SUPPORTED = AEN_NS_ATTRIBUTE | (1 << 9) | (1 << 11) | (1 << 31);
    private static final long NSID_ALL = 0xFFFF_FFFFL;
    /** How long {@link #stop()} waits for a task on the event thread (a listener may be slow). */
    private static final long STOP_WAIT_MILLIS = 2_000;

    private final NvmeController c;
    private final ExecutorService worker;
    private final List<Consumer<NamespaceChange>> listeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<AnaLogPage>> anaListeners = new CopyOnWriteArrayList<>();
    /** Event kinds (type << 8 | info) already logged: each is logged once. */
    private final Set<Integer> logged = new HashSet<>();
    private volatile boolean stopped;
    /** The executor's one thread, once it exists. */
    private volatile Thread eventThread;
    /** Whether an AER is outstanding (event thread only). */
    private boolean armed;
    /** Which request is the current one: a completion of an older one (failed with its connection) is ignored. */
    private int generation;

    AsyncEventHandler(NvmeController controller) {
        this.c = controller;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "nvmf4j-aen-" + controller.options().address().getPort());
            t.setDaemon(true);
            eventThread = t;
            return t;
        });
    }

    void addListener(Consumer<NamespaceChange> listener) {
        listeners.add(listener);
    }

    void addAnaListener(Consumer<AnaLogPage> listener) {
        anaListeners.add(listener);
    }

    /**
     * The controller is live: enable the notices and arm the request. After a reconnect ({@code reconnected}) the
     * previous request died with the connection, and namespaces may have changed meanwhile: rescan first.
     */
    void start(boolean reconnected) {
        if (c.options().isDiscovery() || c.options().ioQueues() == 0) {
            return; // the discovery log is read on demand here; an admin-only controller has no namespaces
        }
        submit(() -> {
            armed = false;
            generation++;
            if (!enableNotices()) {
                return;
            }
            if (reconnected) {
                rescanQuietly(false);
                if (!anaListeners.isEmpty()) {
                    updateAna(); // nvme_mpath_init_identify() after a reconnect: the states may have moved
                }
            }
            arm();
        });
    }

    /**
     * Re-reads the ANA log on the event thread and tells the ANA listeners, as Linux queues ana_work after an ANA
     * status ({@code nvme_failover_req()}); nothing when not live (the reconnect reads it).
     */
    void requestAnaUpdate() {
        submit(() -> {
            if (c.state == ControllerState.LIVE) {
                updateAna();
            }
        });
    }

    /**
     * No admin command of this handler follows: as {@code nvme_stop_ctrl()} flushes {@code async_event_work}, a task
     * on the event thread is waited for (up to {@link #STOP_WAIT_MILLIS}; one waiting for a command's answer is
     * interrupted), so that an Asynchronous Event Request or a rescan it was about to send cannot follow the
     * shutdown's Property Set (nvmet rejects admin commands after CC.SHN and nvmet-tcp logs them as failed).
     */
    void stop() {
        stopped = true;
        worker.shutdownNow();
        if (Thread.currentThread() == eventThread) {
            return; // a listener closing its controller: the task running is this one
        }
        try {
            worker.awaitTermination(STOP_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A rescan requested by the user ({@link NvmeController#rescanNamespaces()}), on the caller's thread. */
    NamespaceChange rescan() throws NvmfException {
        return scan(List.of());
    }

    // ---- on the event thread ------------------------------------------------------------------------------

    private void submit(Runnable task) {
        if (stopped) {
            return;
        }
        try {
            worker.execute(task);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /**
     * nvme_enable_aen(): OAES &amp; NVME_AEN_SUPPORTED; false (and no request is kept outstanding, as in Linux)
     * when the controller announces none of them.
     */
    private boolean enableNotices() {
        int wanted = c.identify.oaes() & AEN_SUPPORTED;
        if (wanted == 0) {
            return false;
        }
        FutureRequest set = new FutureRequest(String.format("Set Features Asynchronous Event Configuration %08x",
                wanted), false, false, sqe -> SetFeaturesCommand.create(sqe, FeatureId.ASYNC_EVENT_CONFIGURATION,
                wanted));
        set.noData();
        try {
            c.submitAdmin(set).get(c.options().commandTimeout().toMillis() + 1000,
                    java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
            return false;
        } catch (Exception e) {
            if (stopped || c.state != ControllerState.LIVE) {
                return false; // closed or lost meanwhile: nothing to report (a reconnect starts again)
            }
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
                    ? e.getCause() : e;
            LOG.log(Level.WARNING, c.name() + ": Failed to configure AEN (cfg " + Integer.toHexString(wanted) + "): "
                    + cause.getMessage());
        }
        return true;
    }

    /** Sends the Asynchronous Event Request unless one is out or the controller is not live. */
    private void arm() {
        if (armed || stopped || c.state != ControllerState.LIVE) {
            return;
        }
        FutureRequest aer = new FutureRequest("Asynchronous Event Request", false, false,
                AsyncEventRequestCommand::create);
        aer.deadline = false;
        aer.noData();
        armed = true;
        int mine = ++generation;
        aer.future.whenComplete((dw0, error) -> submit(() -> {
            if (mine == generation) {
                completed(dw0, error);
            }
        }));
        try {
            c.submitAdmin(aer);
        } catch (RuntimeException e) {
            armed = false;
            LOG.log(Level.DEBUG, c.name() + ": cannot send an Asynchronous Event Request: " + e.getMessage());
        }
    }

    /** nvme_complete_async_event(). */
    private void completed(Long dw0, Throwable error) {
        armed = false;
        if (error != null) {
            // an error status: Linux does not requeue; a lost connection: the reconnect re-arms
            LOG.log(Level.DEBUG, c.name() + ": Asynchronous Event Request ended: " + error.getMessage());
            return;
        }
        int result = (int) (long) dw0;
        AsyncEvent event = AsyncEvent.fromDw0(result);
        if (event.type() == AsyncEvent.TYPE_NOTICE && event.info() == AsyncEvent.NOTICE_NS_ATTRIBUTE_CHANGED) {
            rescanQuietly(true);
        } else if (event.type() == AsyncEvent.TYPE_NOTICE && event.info() == AsyncEvent.NOTICE_ANA_CHANGE) {
            updateAna();
        } else {
            logOnce(event, result);
        }
        arm();
    }

    /**
     * nvme_ana_work() -> nvme_read_ana_log(): an ANA change notice (type 2h, information 03h; NVMe Base 2.0, 5.2)
     * is answered by reading log page 0Ch with RAE clear, which also re-enables the notice; listeners (multipath
     * path choice) get the new states.
     */
    private void updateAna() {
        AnaLogPage page;
        try {
            page = c.anaLog();
        } catch (NvmfException | RuntimeException e) {
            LOG.log(Level.WARNING, c.name() + ": Failed to read ANA log: " + e.getMessage());
            return;
        }
        LOG.log(Level.DEBUG, c.name() + ": ANA log change count " + page.changeCount());
        for (Consumer<AnaLogPage> l : anaListeners) {
            try {
                l.accept(page);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, c.name() + ": ANA change listener failed", e);
            }
        }
    }

    private void logOnce(AsyncEvent event, int result) {
        if (logged.add(event.type() << 8 | event.info())) {
            LOG.log(Level.WARNING, c.name() + ": async event result " + String.format("%08x", result) + " (" + event
                    + "; not handled, logged once per kind)");
        }
    }

    private void rescanQuietly(boolean readChangedList) {
        try {
            List<Long> reported = readChangedList ? readChangedNamespaces() : List.of();
            NamespaceChange change = scan(reported);
            if (!change.isEmpty()) {
                LOG.log(Level.INFO, c.name() + ": " + change);
            }
        } catch (NvmfException | RuntimeException e) {
            LOG.log(Level.WARNING, c.name() + ": namespace rescan failed: " + e.getMessage());
        }
    }

    /**
     * nvme_clear_changed_ns_log(): Get Log Page 04h for all namespaces, RAE clear, so the controller reports the
     * next change. Its NSIDs are informational only (see the class comment).
     */
    private List<Long> readChangedNamespaces() throws NvmfException {
        MemorySegment log = c.getLogPage(LogPageId.CHANGED_NS.code(), NSID_ALL, 0, ChangedNamespaceList.SIZE, false);
        try {
            return changedNamespaceIds(log);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, c.name() + ": malformed Changed Namespace List ignored: " + e.getMessage());
            return List.of();
        }
    }

    /**
     * The NSIDs a Changed Namespace List names, none when it overflowed (more than 1024 changed: every namespace is
     * rescanned anyway).
     *
     * @throws io.nvmf4j.protocol.MalformedStructureException when the controller's page is malformed
     */
    static List<Long> changedNamespaceIds(MemorySegment log) {
        ChangedNamespaceList list = ChangedNamespaceList.decode(log);
        return list.overflow() ? List.of() : list.nsids();
    }

    // ---- the scan (event thread or a user's rescan) --------------------------------------------------------

    /**
     * nvme_scan_work() -> nvme_scan_ns_list() / nvme_validate_ns() / nvme_remove_invalid_namespaces(): the active
     * list, Identify Namespace for each, and the difference with what the API shows. Serialized: one scan at a time.
     */
    private synchronized NamespaceChange scan(List<Long> reported) throws NvmfException {
        Map<Long, IdentifyNamespace> now = new LinkedHashMap<>();
        for (long nsid : c.activeNamespaceIds()) {
            IdentifyNamespace id = c.identifyNamespace(nsid);
            if (id.nsze() != 0) {
                now.put(nsid, AdminQueries.usable(c.name(), nsid, id, c.maxTransferBytes()));
            }
        }
        List<Namespace> added = new ArrayList<>();
        List<Namespace> removed = new ArrayList<>();
        List<Namespace> resized = new ArrayList<>();
        synchronized (c.namespaces) {
            Map<Long, Namespace> next = new LinkedHashMap<>();
            for (Map.Entry<Long, IdentifyNamespace> e : now.entrySet()) {
                Namespace old = c.namespaces.get(e.getKey());
                IdentifyNamespace id = e.getValue();
                if (old == null) {
                    Namespace ns = new Namespace(c, e.getKey(), id);
                    added.add(ns);
                    next.put(e.getKey(), ns);
                } else if (old.blockCount() != id.nsze() || old.blockSize() != id.blockSize()) {
                    Namespace ns = new Namespace(c, e.getKey(), id);
                    resized.add(ns);
                    next.put(e.getKey(), ns);
                } else {
                    next.put(e.getKey(), old);
                }
            }
            for (Namespace old : c.namespaces.values()) {
                if (!next.containsKey(old.nsid())) {
                    removed.add(old);
                }
            }
            c.namespaces.clear();
            c.namespaces.putAll(next);
        }
        NamespaceChange change = new NamespaceChange(added, removed, resized, reported);
        if (!change.isEmpty()) {
            for (Consumer<NamespaceChange> l : listeners) {
                try {
                    l.accept(change);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, c.name() + ": namespace change listener failed", e);
                }
            }
        }
        return change;
    }
}
