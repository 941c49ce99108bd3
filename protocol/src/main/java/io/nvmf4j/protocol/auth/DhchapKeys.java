package io.nvmf4j.protocol.auth;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The DH-HMAC-CHAP settings of one host/subsystem pair, used on both sides: on the target the keys an allowed host
 * must prove (nvmet's {@code dhchap_key}, {@code dhchap_ctrl_key}, {@code dhchap_hash}, {@code dhchap_dhgroup} of a
 * configfs host), on the initiator the secrets given to Connect (nvme-cli {@code --dhchap-secret},
 * {@code --dhchap-ctrl-secret}).
 *
 * @param key      the host's secret (required)
 * @param ctrlKey  the controller's secret for bidirectional authentication, or null for unidirectional
 * @param hashes   hash functions allowed (empty: all three)
 * @param dhGroups DH groups allowed (empty: all six, null included)
 */
public record DhchapKeys(DhchapSecret key, DhchapSecret ctrlKey, Set<DhchapHash> hashes,
                         Set<DhchapDhGroup> dhGroups) {

    public DhchapKeys {
        Objects.requireNonNull(key, "key");
        hashes = hashes == null || hashes.isEmpty() ? EnumSet.allOf(DhchapHash.class) : EnumSet.copyOf(hashes);
        dhGroups = dhGroups == null || dhGroups.isEmpty() ? EnumSet.allOf(DhchapDhGroup.class)
                : EnumSet.copyOf(dhGroups);
        hashes = Set.copyOf(hashes);
        dhGroups = Set.copyOf(dhGroups);
    }

    /** Unidirectional, any hash and group. */
    public static DhchapKeys of(DhchapSecret key) {
        return new DhchapKeys(key, null, Set.of(), Set.of());
    }

    /** Bidirectional when {@code ctrlKey} is not null, any hash and group. */
    public static DhchapKeys of(DhchapSecret key, DhchapSecret ctrlKey) {
        return new DhchapKeys(key, ctrlKey, Set.of(), Set.of());
    }

    public boolean bidirectional() {
        return ctrlKey != null;
    }

    /** The same keys with only {@code hash} and {@code group} allowed. */
    public DhchapKeys restrictedTo(DhchapHash hash, DhchapDhGroup group) {
        return new DhchapKeys(key, ctrlKey, Set.of(hash), Set.of(group));
    }

    /** Never the keys. */
    @Override
    public String toString() {
        return "DhchapKeys[" + (ctrlKey != null ? "bidirectional" : "unidirectional") + ", hashes=" + hashes
                + ", dhGroups=" + dhGroups + "]";
    }
}
