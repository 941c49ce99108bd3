package io.nvmf4j.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * nvmetcli features nvmf4j does not implement and that would weaken security or change what hosts see if they were
 * silently ignored. A configuration that uses one fails to load, naming the field and line, unless the feature is
 * named in {@link ConfigLoader#allowingUnsupported} ({@code serve --config-allow-unsupported NAME}); it then loads
 * with a warning and the feature is not served.
 */
public enum UnsupportedFeature {
    /** {@code addr.treq} "required" or {@code addr.tsas} "tls1.3": a secure channel (NVMe/TCP TLS). */
    TLS("tls", "a secure channel (TLS)"),
    /** An enabled {@code passthru} subsystem. */
    PASSTHRU("passthru", "passthru subsystems"),
    /** {@code pi_enable} on a subsystem or port: end-to-end protection information. */
    PI("pi", "protection information");

    private final String flagName;
    private final String description;

    UnsupportedFeature(String flagName, String description) {
        this.flagName = flagName;
        this.description = description;
    }

    /** The name used on the command line ({@code tls}, {@code ana}...). */
    public String flagName() {
        return flagName;
    }

    public String description() {
        return description;
    }

    public static Optional<UnsupportedFeature> fromFlagName(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(f -> f.flagName.equals(n)).findFirst();
    }

    /** "tls, passthru, pi". */
    public static String flagNames() {
        return Arrays.stream(values()).map(UnsupportedFeature::flagName).collect(Collectors.joining(", "));
    }
}
