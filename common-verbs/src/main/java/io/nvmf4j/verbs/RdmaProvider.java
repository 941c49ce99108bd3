package io.nvmf4j.verbs;

import java.util.List;

/**
 * An RDMA provider ("softiwarp", "ibverbs"), discovered with {@link java.util.ServiceLoader}. Implementations
 * list themselves in {@code META-INF/services/io.nvmf4j.verbs.RdmaProvider} and need a public no-argument
 * constructor that does no I/O.
 */
public interface RdmaProvider {
    /** The provider's name, e.g. {@code "softiwarp"} or {@code "ibverbs"}. */
    String name();

    /** Whether the provider can open a device here, and if not, why. Cheap; may be called repeatedly. */
    ProviderAvailability availability();

    /**
     * Preference when several providers are available: {@link RdmaProviders#auto()} picks the highest.
     * Hardware providers return more than software fallbacks.
     */
    default int priority() {
        return 0;
    }

    /** The names of the devices this provider offers (e.g. {@code "softiwarp0"}, {@code "mlx5_0"}). */
    List<String> deviceNames();

    /**
     * Opens a device.
     *
     * @param nameOrNull a name from {@link #deviceNames()}, or null for the first device
     * @throws ProviderUnavailableException when the provider or the named device is not present
     * @throws VerbsException on any other failure
     */
    RdmaDevice openDevice(String nameOrNull) throws VerbsException;
}
