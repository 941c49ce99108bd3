package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ProviderAvailability;
import io.nvmf4j.verbs.ProviderUnavailableException;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.VerbsException;

import java.util.List;

/**
 * softiwarp: a pure-Java iWARP provider (RFC 5044 MPA with RFC 6581, RFC 5041 DDP, RFC 5040 RDMAP) over TCP,
 * wire-compatible with Linux siw. Always available: it needs nothing but a JVM. Each {@link #openDevice} returns
 * an independent device (own STag space, queue pair numbers and progress engines).
 */
public final class SoftiwarpProvider implements RdmaProvider {
    public static final String NAME = "softiwarp";
    public static final String DEVICE_NAME = "softiwarp0";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProviderAvailability availability() {
        return ProviderAvailability.available("pure-Java iWARP over TCP, always available");
    }

    @Override
    public int priority() {
        return -100; // the fallback when no hardware provider is present
    }

    @Override
    public List<String> deviceNames() {
        return List.of(DEVICE_NAME);
    }

    @Override
    public RdmaDevice openDevice(String nameOrNull) throws VerbsException {
        if (nameOrNull != null && !DEVICE_NAME.equals(nameOrNull)) {
            throw new ProviderUnavailableException("softiwarp has one device, " + DEVICE_NAME + ", not '" + nameOrNull
                    + "'.");
        }
        return new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties());
    }
}
