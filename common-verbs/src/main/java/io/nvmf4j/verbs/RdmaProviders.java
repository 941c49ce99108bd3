package io.nvmf4j.verbs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/** Finds providers through {@link ServiceLoader}. */
public final class RdmaProviders {
    private RdmaProviders() {
    }

    /** Every provider on the class path, available or not, highest {@link RdmaProvider#priority()} first. */
    public static List<RdmaProvider> all() {
        List<RdmaProvider> providers = new ArrayList<>();
        for (RdmaProvider provider : ServiceLoader.load(RdmaProvider.class, RdmaProviders.class.getClassLoader())) {
            providers.add(provider);
        }
        providers.sort(Comparator.comparingInt(RdmaProvider::priority).reversed());
        return List.copyOf(providers);
    }

    /**
     * The provider with this name, if it is available.
     *
     * @throws ProviderUnavailableException when no provider has that name or it is not available (with the reason)
     */
    public static RdmaProvider byName(String name) throws ProviderUnavailableException {
        for (RdmaProvider provider : all()) {
            if (provider.name().equals(name)) {
                ProviderAvailability availability = provider.availability();
                if (!availability.present()) {
                    throw new ProviderUnavailableException(
                            "RDMA provider '" + name + "' is not available: " + availability.reason());
                }
                return provider;
            }
        }
        throw new ProviderUnavailableException("No RDMA provider named '" + name + "' is on the class path (known: "
                + all().stream().map(RdmaProvider::name).toList() + ").");
    }

    /**
     * The first available provider by priority; softiwarp, which needs nothing but a JVM, is the fallback.
     *
     * @throws ProviderUnavailableException when no provider is available (with each one's reason)
     */
    public static RdmaProvider auto() throws ProviderUnavailableException {
        StringBuilder reasons = new StringBuilder();
        for (RdmaProvider provider : all()) {
            ProviderAvailability availability = provider.availability();
            if (availability.present()) {
                return provider;
            }
            reasons.append(' ').append(provider.name()).append(": ").append(availability.reason());
        }
        throw new ProviderUnavailableException("No RDMA provider is available." + reasons);
    }
}
