package io.nvmf4j.target;

import io.nvmf4j.protocol.auth.DhchapKeys;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Who may connect to a {@link Subsystem}: allow-any-host or the allowed host NQNs (nvmet's
 * {@code subsystems/<nqn>/allowed_hosts}, nvmet_host_allowed()) and the DH-HMAC-CHAP keys of each allowed host
 * (nvmet's {@code hosts/<nqn>/dhchap_*}). Every change to the list runs the subsystem's host-list listener (the
 * discovery log changes with it).
 */
final class SubsystemHosts {

    private volatile boolean allowAnyHost;
    private final Set<String> allowedHosts = new CopyOnWriteArraySet<>();
    private final Map<String, DhchapKeys> hostKeys = new ConcurrentHashMap<>();
    private volatile Runnable hostListChanged = () -> { };

    SubsystemHosts(boolean allowAnyHost, Set<String> allowedHosts, Map<String, DhchapKeys> hostKeys) {
        this.allowAnyHost = allowAnyHost;
        this.allowedHosts.addAll(allowedHosts);
        this.hostKeys.putAll(hostKeys);
    }

    boolean allowsAnyHost() {
        return allowAnyHost;
    }

    Set<String> allowedHosts() {
        return Set.copyOf(allowedHosts);
    }

    /** nvmet_host_allowed() without the discovery subsystem: allow-any-host or a host NQN on the list. */
    boolean hostAllowed(String hostNqn) {
        return allowAnyHost || allowedHosts.contains(hostNqn);
    }

    void allowAnyHost(boolean allow) {
        allowAnyHost = allow;
        hostListChanged.run();
    }

    void allowHost(String hostNqn) {
        if (allowedHosts.add(Objects.requireNonNull(hostNqn))) {
            hostListChanged.run();
        }
    }

    /**
     * Allows {@code hostNqn} with DH-HMAC-CHAP keys: its Connect responses ask for authentication (AUTHREQ.ATR) and
     * each of its queues accepts nothing but Authentication Send/Receive until it authenticated. {@code keys} null
     * allows the host without authentication (and forgets keys it had). Controllers already connected keep the keys
     * they authenticated with (nvmet copies them at Connect too).
     */
    void allowHost(String hostNqn, DhchapKeys keys) {
        Objects.requireNonNull(hostNqn);
        if (keys == null) {
            hostKeys.remove(hostNqn);
        } else {
            hostKeys.put(hostNqn, keys);
        }
        allowHost(hostNqn);
    }

    /** The DH-HMAC-CHAP keys of an allowed host, empty when it connects without authentication. */
    Optional<DhchapKeys> hostKeys(String hostNqn) {
        return hostNqn == null ? Optional.empty() : Optional.ofNullable(hostKeys.get(hostNqn));
    }

    void disallowHost(String hostNqn) {
        hostKeys.remove(hostNqn);
        if (allowedHosts.remove(hostNqn)) {
            hostListChanged.run();
        }
    }

    void onHostListChange(Runnable action) {
        hostListChanged = action;
    }
}
