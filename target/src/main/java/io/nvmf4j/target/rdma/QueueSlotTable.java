package io.nvmf4j.target.rdma;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A poll group's queues (SPDK's {@code spdk_nvmf_rdma_poller} qpair list): the slot each queue's work request ids
 * name ({@link WorkRequestIds}), with a generation so a completion for a queue that is gone is recognised, the
 * completion-queue room each slot has reserved (the one completion queue must never overflow), and the queues not
 * yet connected, per group and per peer address ({@link UnconnectedPeers}). Reservation and registration run on
 * accepting threads under this table's monitor; the poll thread reads {@link #snapshot()} without a lock.
 */
final class QueueSlotTable {

    // written under 'this' by accepting threads, read by the poll thread
    private volatile RdmaQueue[] slots = new RdmaQueue[16];
    private int[] generations = new int[16];
    private int[] slotNeeds = new int[16];
    private boolean[] slotUnconnected = new boolean[16];
    private InetAddress[] slotPeers = new InetAddress[16];
    private final int cqCapacity;
    private final UnconnectedPeers peers;
    private final int maxUnconnected;
    private int cqEntriesReserved;
    private int queueCount;
    private int unconnected;

    QueueSlotTable(int cqCapacity, UnconnectedPeers peers, int maxUnconnected) {
        this.cqCapacity = cqCapacity;
        this.peers = peers;
        this.maxUnconnected = maxUnconnected;
    }

    /** The registered queues by slot (null where free): read by the poll thread without a lock. */
    RdmaQueue[] snapshot() {
        return slots;
    }

    synchronized int queueCount() {
        return queueCount;
    }

    /** See {@link PollGroup#reserve}. */
    synchronized SlotReservation reserve(int recvEntries, InetAddress peer) {
        int need = QueueSizing.completionQueueNeeds(Math.min(QueueSizing.CONNECT_RECEIVES, recvEntries));
        if (cqEntriesReserved + need > cqCapacity) {
            return SlotReservation.Refused.NO_ROOM;
        }
        if (unconnected >= maxUnconnected || !peers.tryAcquire(peer)) {
            return SlotReservation.Refused.UNCONNECTED_LIMIT;
        }
        int free = -1;
        for (int i = 0; i < slotNeeds.length; i++) {
            if (slotNeeds[i] == 0) {
                free = i;
                break;
            }
        }
        if (free < 0) {
            if (slotNeeds.length >= WorkRequestIds.MAX_SLOTS) {
                peers.release(peer);
                return SlotReservation.Refused.NO_ROOM;
            }
            free = slotNeeds.length;
            int size = slotNeeds.length * 2;
            slotNeeds = Arrays.copyOf(slotNeeds, size);
            generations = Arrays.copyOf(generations, size);
            slots = Arrays.copyOf(slots, size);
            slotUnconnected = Arrays.copyOf(slotUnconnected, size);
            slotPeers = Arrays.copyOf(slotPeers, size);
        }
        generations[free] = (generations[free] + 1) & 0xFFFF;
        slotNeeds[free] = need;
        cqEntriesReserved += need;
        slotUnconnected[free] = true;
        slotPeers[free] = peer;
        unconnected++;
        return new SlotReservation.Reserved(free, generations[free]);
    }

    /** Changes a slot's completion-queue reservation to {@code need} entries; false (unchanged) if no room. */
    synchronized boolean resizeReservation(int slot, int need) {
        int delta = need - slotNeeds[slot];
        if (delta > 0 && cqEntriesReserved + delta > cqCapacity) {
            return false;
        }
        slotNeeds[slot] = need;
        cqEntriesReserved += delta;
        return true;
    }

    /** The slot's queue completed Connect (or is gone): it no longer counts as unconnected. Idempotent. */
    synchronized void leaveUnconnected(int slot) {
        if (slotUnconnected[slot]) {
            slotUnconnected[slot] = false;
            unconnected--;
            peers.release(slotPeers[slot]);
            slotPeers[slot] = null;
        }
    }

    /** Publishes a queue in its reserved slot; completions for it are dispatched from now on. */
    synchronized void register(RdmaQueue queue) {
        RdmaQueue[] s = slots;
        s[queue.slot] = queue;
        slots = s; // the volatile write publishes the element to the poll thread
        queueCount++;
    }

    /** Gives back a reservation (and the slot's queue, if registered). */
    synchronized void unreserve(int slot) {
        leaveUnconnected(slot);
        cqEntriesReserved -= slotNeeds[slot];
        slotNeeds[slot] = 0;
        RdmaQueue[] s = slots;
        if (s[slot] != null) {
            s[slot] = null;
            queueCount--;
            slots = s;
        }
    }

    /** Live queues (a snapshot, for shutdown). */
    List<RdmaQueue> queues() {
        List<RdmaQueue> list = new ArrayList<>();
        for (RdmaQueue q : slots) {
            if (q != null) {
                list.add(q);
            }
        }
        return list;
    }
}
