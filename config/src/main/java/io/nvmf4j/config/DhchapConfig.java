package io.nvmf4j.config;

import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapSecret;
import java.util.Optional;
import java.util.Set;

/**
 * A host's DH-HMAC-CHAP settings (NVMe Base 2.0 section 8.13.5): nvmetcli's {@code hosts[].dhchap} object, which
 * dumps Linux nvmet's {@code dhchap_key}, {@code dhchap_ctrl_key}, {@code dhchap_hash} and {@code dhchap_dhgroup}
 * host attributes ({@code drivers/nvme/target/configfs.c}).
 *
 * @param key     the host's secret; null when none is set (nvmetcli writes {@code ""}): the host is then not
 *                authenticated, as in Linux {@code nvmet_setup_auth()}
 * @param ctrlKey the controller's secret for bidirectional authentication; null for unidirectional
 * @param hash    the one hash function allowed ({@code "hmac(sha256)"}...); null when the file does not name one
 *                (every hash the host offers is then acceptable)
 * @param dhGroup the one DH group allowed ({@code "null"}, {@code "ffdhe2048"}...); null when not named
 */
public record DhchapConfig(DhchapSecret key, DhchapSecret ctrlKey, DhchapHash hash, DhchapDhGroup dhGroup) {

    public DhchapConfig {
        if (key == null && ctrlKey != null) {
            throw new IllegalArgumentException("a controller key needs a host key");
        }
    }

    /** Unidirectional authentication with {@code key}, any hash and group the host offers. */
    public static DhchapConfig of(DhchapSecret key) {
        return new DhchapConfig(key, null, null, null);
    }

    /** Bidirectional when {@code ctrlKey} is not null. */
    public static DhchapConfig of(DhchapSecret key, DhchapSecret ctrlKey) {
        return new DhchapConfig(key, ctrlKey, null, null);
    }

    /** True when the host must authenticate before it gets the subsystem. */
    public boolean requiresAuthentication() {
        return key != null;
    }

    /** The keys the target enforces, or empty when the host is not authenticated. */
    public Optional<DhchapKeys> keys() {
        if (key == null) {
            return Optional.empty();
        }
        return Optional.of(new DhchapKeys(key, ctrlKey, hash == null ? Set.of() : Set.of(hash),
                dhGroup == null ? Set.of() : Set.of(dhGroup)));
    }
}
