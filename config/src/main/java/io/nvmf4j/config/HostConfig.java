package io.nvmf4j.config;

import io.nvmf4j.protocol.auth.DhchapKeys;
import java.util.Optional;

/**
 * A host NQN declared under {@code hosts}: nvmetcli's {@code Host}, Linux {@code nvmet_host}.
 *
 * @param dhchap its DH-HMAC-CHAP settings, or null when the file has no {@code dhchap} object for it
 */
public record HostConfig(String nqn, DhchapConfig dhchap) {

    public HostConfig(String nqn) {
        this(nqn, null);
    }

    /** The keys the target must enforce for this host, empty when it is not authenticated. */
    public Optional<DhchapKeys> keys() {
        return dhchap == null ? Optional.empty() : dhchap.keys();
    }
}
