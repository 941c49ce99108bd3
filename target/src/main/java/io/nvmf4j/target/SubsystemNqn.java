package io.nvmf4j.target;

import io.nvmf4j.protocol.Nqn;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The name a subsystem is known by. Usually a proper NVMe Qualified Name ({@link Nqn}), but Linux nvmet accepts any
 * name up to 223 bytes without a format check (nvmetcli's own examples use {@code testnqn}, and
 * {@code nvme connect -n testnqn} works against it), so a configuration saved on Linux may carry such names. This type
 * accepts what nvmet accepts, minus what cannot travel in a 256-byte NUL-terminated field or a configfs directory
 * name: empty names, NUL, '/', control characters and more than 223 bytes of UTF-8.
 */
public record SubsystemNqn(String value) {

    public static final SubsystemNqn DISCOVERY = new SubsystemNqn(Nqn.DISCOVERY_VALUE);

    public SubsystemNqn {
        Objects.requireNonNull(value, "subsystem NQN");
        if (value.isEmpty()) {
            throw new IllegalArgumentException("subsystem NQN is empty");
        }
        if (value.getBytes(StandardCharsets.UTF_8).length > Nqn.MAX_LENGTH) {
            throw new IllegalArgumentException("subsystem NQN \"" + value + "\" is longer than " + Nqn.MAX_LENGTH
                    + " bytes");
        }
        if (value.chars().anyMatch(c -> c < 0x20 || c == 0x7F || c == '/')) {
            throw new IllegalArgumentException("subsystem NQN \"" + value
                    + "\" contains a control character or '/'");
        }
    }

    public static SubsystemNqn of(String value) {
        return Nqn.DISCOVERY_VALUE.equals(value) ? DISCOVERY : new SubsystemNqn(value);
    }

    public static SubsystemNqn of(Nqn nqn) {
        return of(nqn.value());
    }

    /** Whether the name also follows the NVMe NQN rules (NVMe Base 2.0, 4.5). */
    public boolean isStandard() {
        return Nqn.isStandard(value);
    }

    public boolean isDiscovery() {
        return Nqn.DISCOVERY_VALUE.equals(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
