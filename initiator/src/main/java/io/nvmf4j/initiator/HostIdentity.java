package io.nvmf4j.initiator;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.UUID;

/**
 * Who this host is on the fabric: the host NQN and the 16-byte host identifier that go into every Connect data
 * (NVMe-oF 1.1, 3.3, HOSTNQN and HOSTID).
 *
 * <p>Found the way nvme-cli/libnvme do ({@code nvmf_hostnqn_from_file()}, {@code nvmf_hostid_from_file()}): the
 * first line of {@code /etc/nvme/hostnqn} and {@code /etc/nvme/hostid} when present; otherwise a host NQN
 * {@code nqn.2014-08.org.nvmexpress:uuid:<uuid>} and a host ID equal to that UUID (nvme-cli derives the host ID
 * from a UUID host NQN). Nothing is ever written: persisting a generated identity is the administrator's job
 * ({@code nvme gen-hostnqn > /etc/nvme/hostnqn}).
 */
public record HostIdentity(Nqn hostNqn, UUID hostId) {

    /** The folder nvme-cli reads. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/etc/nvme");

    public HostIdentity {
        Objects.requireNonNull(hostNqn, "hostNqn");
        Objects.requireNonNull(hostId, "hostId");
    }

    /** From {@code /etc/nvme}, falling back to a generated identity. */
    public static HostIdentity fromSystem() {
        return load(DEFAULT_DIRECTORY);
    }

    /**
     * From {@code directory/hostnqn} and {@code directory/hostid} when they exist and are valid; missing parts
     * are derived or generated as described above. An invalid file is ignored like a missing one would not be:
     * it fails with a message naming the file, since connecting under a name the administrator did not mean is
     * worse than not connecting.
     */
    public static HostIdentity load(Path directory) {
        Nqn nqn = readFirstLine(directory.resolve("hostnqn")).map(text -> {
            try {
                return Nqn.parse(text);
            } catch (MalformedStructureException e) {
                throw new IllegalStateException(directory.resolve("hostnqn") + ": " + e.getMessage(), e);
            }
        }).orElse(null);
        UUID id = readFirstLine(directory.resolve("hostid")).map(text -> {
            try {
                return UUID.fromString(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(directory.resolve("hostid") + ": not a UUID: \"" + text + "\"", e);
            }
        }).orElse(null);
        if (nqn == null) {
            UUID uuid = id != null ? id : UUID.randomUUID();
            return new HostIdentity(Nqn.hostNqnFor(uuid), uuid);
        }
        if (id == null) {
            id = nqn.uuid().orElseGet(UUID::randomUUID);
        }
        return new HostIdentity(nqn, id);
    }

    /** A fresh identity: a random UUID used as host ID and inside the host NQN. */
    public static HostIdentity generate() {
        UUID uuid = UUID.randomUUID();
        return new HostIdentity(Nqn.hostNqnFor(uuid), uuid);
    }

    /** The given host NQN with a host ID derived from it (its UUID) or random. */
    public static HostIdentity of(Nqn hostNqn) {
        return new HostIdentity(hostNqn, hostNqn.uuid().orElseGet(UUID::randomUUID));
    }

    private static java.util.Optional<String> readFirstLine(Path file) {
        if (!Files.isReadable(file)) {
            return java.util.Optional.empty();
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int nl = text.indexOf('\n');
            String line = (nl >= 0 ? text.substring(0, nl) : text).strip();
            return line.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(line);
        } catch (IOException e) {
            return java.util.Optional.empty();
        }
    }
}
