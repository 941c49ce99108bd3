package io.nvmf4j.verbs;

import java.util.Objects;

/**
 * Whether a provider can be used on this machine.
 *
 * @param present true when {@link RdmaProvider#openDevice(String)} can succeed
 * @param reason  one sentence saying why not (or a short description when present)
 */
public record ProviderAvailability(boolean present, String reason) {
    public ProviderAvailability {
        Objects.requireNonNull(reason, "reason");
    }

    public static ProviderAvailability available(String description) {
        return new ProviderAvailability(true, description);
    }

    public static ProviderAvailability unavailable(String reason) {
        return new ProviderAvailability(false, reason);
    }
}
