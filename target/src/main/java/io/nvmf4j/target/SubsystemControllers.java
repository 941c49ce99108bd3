package io.nvmf4j.target;

import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * A subsystem's live controllers by controller ID, and the IDs it gives out: nvmet's {@code subsys->ctrls} list
 * and its {@code cntlid_ida} over {@code cntlid_min..cntlid_max} (SPDK's {@code subsystem->ctrlrs} and
 * {@code next_cntlid}), with the source address of each controller's admin queue for {@link ControllerShare}.
 *
 * <p>Threads: {@link #register} and {@link #unregister} run under the owning {@link Subsystem}'s monitor (its
 * synchronized methods, which also keep its identity from changing while a controller is registered); the
 * lookups ({@link #get}, {@link #all}, {@link #live}, {@link #size}, {@link #isEmpty}) read the concurrent map from any thread.
 */
final class SubsystemControllers {

    private final int cntlidMin;
    private final int cntlidMax;
    private final Map<Integer, Controller> byId = new ConcurrentHashMap<>();
    /** Controller IDs in use (guarded by the subsystem's monitor). */
    private final BitSet usedIds = new BitSet();
    /** The source address of each controller's admin queue (guarded by the subsystem's monitor). */
    private final Map<Integer, String> peers = new HashMap<>();

    SubsystemControllers(int cntlidMin, int cntlidMax) {
        this.cntlidMin = cntlidMin;
        this.cntlidMax = cntlidMax;
    }

    /** See {@link Subsystem#registerController(IntFunction, String, String, ControllerShare, String[])}. */
    Controller register(IntFunction<Controller> factory, String hostNqn, String peer, ControllerShare share,
                        String[] refusal) {
        if (share != null) {
            int sameHost = 0;
            int sameAddress = 0;
            for (Map.Entry<Integer, Controller> e : byId.entrySet()) {
                Controller c = e.getValue();
                if (c.isReleased()) {
                    continue;
                }
                if (c.hostNqn().equals(hostNqn)) {
                    sameHost++;
                }
                if (peer != null && peer.equals(peers.get(e.getKey()))) {
                    sameAddress++;
                }
            }
            if (sameHost >= share.perHostNqn()) {
                refusal[0] = "host NQN holds " + sameHost + " controllers, its share (" + share.perHostNqn() + ")";
                return null;
            }
            if (sameAddress >= share.perAddress()) {
                refusal[0] = "address " + peer + " holds " + sameAddress + " controllers, its share ("
                        + share.perAddress() + ")";
                return null;
            }
        }
        int id = usedIds.nextClearBit(cntlidMin);
        if (id > cntlidMax) {
            return null;
        }
        usedIds.set(id);
        Controller c = factory.apply(id);
        byId.put(id, c);
        if (peer != null) {
            peers.put(id, peer);
        }
        return c;
    }

    void unregister(Controller controller) {
        if (byId.remove(controller.id(), controller)) {
            peers.remove(controller.id());
            usedIds.clear(controller.id());
        }
    }

    Controller get(int cntlid) {
        return byId.get(cntlid);
    }

    /** A copy of the controllers now registered. */
    Collection<Controller> all() {
        return List.copyOf(byId.values());
    }

    /** The controllers registered, a live view (for announcing a change to each). */
    Collection<Controller> live() {
        return byId.values();
    }

    int size() {
        return byId.size();
    }

    boolean isEmpty() {
        return byId.isEmpty();
    }
}
