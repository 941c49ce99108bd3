package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.admin.AsyncEvent;
import io.nvmf4j.protocol.log.ChangedNamespaceList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Asynchronous event machinery of one controller (nvmet_add_async_event(), nvmet_async_event_work(),
 * nvmet_execute_async_event(), nvmet_add_to_changed_ns_log()): up to {@value #MAX_OUTSTANDING} outstanding
 * Asynchronous Event Request commands (Identify Controller AERL = 3), a queue of events waiting for one, the
 * Changed Namespace List, and the per-event enable (Set Features Asynchronous Event Configuration) and mask (an
 * event is not raised again until the host reads its log page without Retain Asynchronous Event).
 */
final class AsyncEvents {

    /** nvmet's NVMET_ASYNC_EVENTS. */
    static final int MAX_OUTSTANDING = 4;
    /** Asynchronous Event Configuration bit 8: Namespace Attribute Notices. */
    static final int AEN_NS_ATTRIBUTE = 1 << 8;
    /** Asynchronous Event Configuration bit 11: Asymmetric Namespace Access Change Notices. */
    static final int AEN_ANA_CHANGE = 1 << 11;
    /** Asynchronous Event Configuration bit 31: Discovery Log Page Change Notices. */
    static final int AEN_DISCOVERY_CHANGE = 1 << 31;
    /** SMART critical warning bits 7:0 plus namespace attribute notices: what Set Features accepts (NVMET_AEN_CFG_ALL). */
    static final int AEN_SUPPORTED_NVM = 0xFF | AEN_NS_ATTRIBUTE | AEN_ANA_CHANGE;

    private final ArrayDeque<Request> commands = new ArrayDeque<>();
    private final ArrayDeque<AsyncEvent> events = new ArrayDeque<>();
    private final List<Long> changedNamespaces = new ArrayList<>();
    private boolean changedOverflow;
    private int enabled;
    private int masked;
    private boolean reservationEventPending;

    AsyncEvents(int initiallyEnabled) {
        this.enabled = initiallyEnabled;
    }

    synchronized int enabled() {
        return enabled;
    }

    synchronized void enabled(int value) {
        enabled = value;
    }

    /** Holds an AER command; false when {@value #MAX_OUTSTANDING} are already outstanding (ASYNC_LIMIT). */
    boolean offer(Request request) {
        List<Runnable> toComplete;
        synchronized (this) {
            if (commands.size() >= MAX_OUTSTANDING) {
                return false;
            }
            commands.add(request);
            toComplete = drain();
        }
        toComplete.forEach(Runnable::run);
        return true;
    }

    /** nvmet_ns_changed() for one controller: log the NSID, raise the notice unless disabled or masked. */
    void namespaceChanged(long nsid) {
        List<Runnable> toComplete;
        synchronized (this) {
            if (!changedOverflow && !changedNamespaces.contains(nsid)) {
                if (changedNamespaces.size() == ChangedNamespaceList.MAX_ENTRIES) {
                    changedOverflow = true;
                    changedNamespaces.clear();
                } else {
                    changedNamespaces.add(nsid);
                }
            }
            if (!raise(AEN_NS_ATTRIBUTE)) {
                return;
            }
            events.add(AsyncEvent.namespaceAttributeChanged());
            toComplete = drain();
        }
        toComplete.forEach(Runnable::run);
    }

    /** nvmet_port_send_ana_event() for one controller: the ANA change notice unless disabled or masked. */
    void anaChanged() {
        List<Runnable> toComplete;
        synchronized (this) {
            if (!raise(AEN_ANA_CHANGE)) {
                return;
            }
            events.add(AsyncEvent.anaChanged());
            toComplete = drain();
        }
        toComplete.forEach(Runnable::run);
    }

    /** nvmet_send_disc_aen(): Discovery Log Page Change notice to a discovery controller. */
    void discoveryLogChanged() {
        List<Runnable> toComplete;
        synchronized (this) {
            if (!raise(AEN_DISCOVERY_CHANGE)) {
                return;
            }
            events.add(AsyncEvent.discoveryLogChanged());
            toComplete = drain();
        }
        toComplete.forEach(Runnable::run);
    }

    /**
     * nvmet_pr_send_event_to_host(): the Reservation Log Page Available event (I/O command set specific, not subject
     * to Asynchronous Event Configuration). Raised once until the host reads log page 80h, as the notices are, so
     * the queue of events stays bounded whatever a peer provokes.
     */
    void reservationLogAvailable() {
        List<Runnable> toComplete;
        synchronized (this) {
            if (reservationEventPending) {
                return;
            }
            reservationEventPending = true;
            events.add(AsyncEvent.reservationLogAvailable());
            toComplete = drain();
        }
        toComplete.forEach(Runnable::run);
    }

    /** Reading log page 80h without RAE re-arms the reservation event. */
    synchronized void clearReservationMask(boolean retainAsyncEvent) {
        if (!retainAsyncEvent) {
            reservationEventPending = false;
        }
    }

    /** nvmet_aen_bit_disabled(): false if the event type is disabled or already raised and not yet read. */
    private boolean raise(int bit) {
        if ((enabled & bit) == 0 || (masked & bit) != 0) {
            return false;
        }
        masked |= bit;
        return true;
    }

    /** nvmet_clear_aen_bit(): reading the log page without RAE re-arms the event. */
    synchronized void clearMask(int bit, boolean retainAsyncEvent) {
        if (!retainAsyncEvent) {
            masked &= ~bit;
        }
    }

    /** Takes the Changed Namespace List (and clears it, as reading the log page does). */
    synchronized ChangedNamespaceList takeChangedNamespaces() {
        ChangedNamespaceList list = changedOverflow
                ? ChangedNamespaceList.overflowed()
                : ChangedNamespaceList.of(List.copyOf(changedNamespaces));
        changedNamespaces.clear();
        changedOverflow = false;
        return list;
    }

    /** Pairs waiting events with waiting commands; the completions run outside the lock. */
    private List<Runnable> drain() {
        List<Runnable> out = new ArrayList<>();
        while (!commands.isEmpty() && !events.isEmpty()) {
            Request r = commands.poll();
            AsyncEvent e = events.poll();
            r.cqe().dw0(e.toDw0());
            out.add(() -> r.sq.complete(r, Status.SUCCESS));
        }
        return out;
    }

    /** nvmet_async_events_failall(): outstanding AERs complete with Internal Error when the admin queue goes. */
    void failAll() {
        List<Request> pending;
        synchronized (this) {
            pending = new ArrayList<>(commands);
            commands.clear();
        }
        for (Request r : pending) {
            r.sq.complete(r, StatusCode.INTERNAL.withDnr());
        }
    }

    synchronized int outstanding() {
        return commands.size();
    }
}
