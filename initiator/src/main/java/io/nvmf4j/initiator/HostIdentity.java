package io.nvmf4j.initiator;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Who this host is on the fabric: the host NQN and the 16-byte host identifier that go into every Connect data
 * (NVMe-oF 1.1, 3.3, HOSTNQN and HOSTID).
 *
 * <p>Found the way libnvme finds them for nvme-cli ({@code nvme_host_get_ids()}), so that {@code --allow-host},
 * reservations and ANA state see the same host from one command to the next:
 * <ol>
 *   <li>the {@code LIBNVME_HOSTNQN} and {@code LIBNVME_HOSTID} environment variables, else the first line of
 *       {@code /etc/nvme/hostnqn} and {@code /etc/nvme/hostid};</li>
 *   <li>a host ID missing beside a {@code nqn.2014-08.org.nvmexpress:uuid:} host NQN is that UUID;</li>
 *   <li>a host ID still missing is the machine's own UUID, the SMBIOS system UUID the kernel shows in
 *       {@code /sys/class/dmi/id/product_uuid} (libnvme's {@code nvmf_hostnqn_generate()}): stable across commands
 *       and reboots;</li>
 *   <li>without that (a non-root user cannot read it, some machines have none) a random one, which changes with
 *       every process: {@link Resolved#generated()} says so, and the caller should tell the user;</li>
 *   <li>a host NQN still missing is {@code nqn.2014-08.org.nvmexpress:uuid:<host ID>}.</li>
 * </ol>
 * Nothing is ever written: persisting an identity is the administrator's job
 * ({@code nvmf4j gen-hostnqn > /etc/nvme/hostnqn}, as with {@code nvme gen-hostnqn}).
 */
public record HostIdentity(Nqn hostNqn, UUID hostId) {

    /** The folder nvme-cli reads. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/etc/nvme");
    /** Where Linux shows the SMBIOS system UUID (readable by root only). */
    public static final Path DEFAULT_PRODUCT_UUID = Path.of("/sys/class/dmi/id/product_uuid");

    /** The canonical 8-4-4-4-12 text; {@link UUID#fromString} alone also takes shortened groups. */
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final UUID ZERO = new UUID(0, 0);

    public HostIdentity {
        Objects.requireNonNull(hostNqn, "hostNqn");
        Objects.requireNonNull(hostId, "hostId");
    }

    /**
     * Where an identity is looked up; {@link #system()} is the machine's, tests and embedders name their own.
     *
     * @param directory   holds {@code hostnqn} and {@code hostid} (nvme-cli's {@code /etc/nvme})
     * @param productUuid the file with the system UUID ({@code /sys/class/dmi/id/product_uuid}); null: none
     * @param environment reads an environment variable (null when unset)
     */
    public record Sources(Path directory, Path productUuid, Function<String, String> environment) {

        public Sources {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(environment, "environment");
        }

        /** This machine's: {@code /etc/nvme}, the DMI system UUID and the process environment. */
        public static Sources system() {
            return new Sources(DEFAULT_DIRECTORY, DEFAULT_PRODUCT_UUID, System::getenv);
        }

        /** The given files and no environment overrides. */
        public static Sources of(Path directory, Path productUuid) {
            return new Sources(directory, productUuid, name -> null);
        }
    }

    /**
     * An identity and whether it was made up for this process.
     *
     * @param identity  the host NQN and host ID
     * @param generated true when the host ID (and a host NQN derived from it) is random: the next process gets
     *                  another one, so a target sees a new host each time
     */
    public record Resolved(HostIdentity identity, boolean generated) {

        public Resolved {
            Objects.requireNonNull(identity, "identity");
        }

        /**
         * What to tell the user when the identity was made up (libnvme's "using auto generated hostid and
         * hostnqn"), or null.
         */
        public String notice() {
            if (!generated) {
                return null;
            }
            return "warning: using auto generated hostid and hostnqn (" + identity.hostNqn() + "): no "
                    + DEFAULT_DIRECTORY.resolve("hostnqn") + " and no readable DMI system UUID, so each command is"
                    + " a new host to the target; keep one with 'nvmf4j gen-hostnqn > "
                    + DEFAULT_DIRECTORY.resolve("hostnqn") + "'";
        }
    }

    /** From this machine ({@link Sources#system()}), falling back to a generated identity. */
    public static HostIdentity fromSystem() {
        return resolve(Sources.system()).identity();
    }

    /**
     * From {@code directory/hostnqn} and {@code directory/hostid}, else as described above, without the system UUID
     * or the environment.
     */
    public static HostIdentity load(Path directory) {
        return resolve(Sources.of(directory, null)).identity();
    }

    /**
     * The identity {@code sources} give, in libnvme's order (see the class comment). A hostnqn or hostid file that is
     * present but unusable fails with a message naming it: connecting under a name the administrator did not mean is
     * worse than not connecting.
     */
    public static Resolved resolve(Sources sources) {
        return resolve(sources, null, null);
    }

    /**
     * As {@link #resolve(Sources)}, with a host NQN and host ID given by the caller (nvme-cli's {@code --hostnqn},
     * {@code --hostid}; null when not given) taking the place of the configured ones: as with libnvme, a host ID not
     * given still comes from the hostid file before it is derived from a given host NQN.
     */
    public static Resolved resolve(Sources sources, Nqn givenHostNqn, UUID givenHostId) {
        Path nqnFile = sources.directory().resolve("hostnqn");
        Path idFile = sources.directory().resolve("hostid");
        Nqn nqn = givenHostNqn != null ? givenHostNqn : configured(sources, "LIBNVME_HOSTNQN", nqnFile).map(text -> {
            try {
                return Nqn.parse(text);
            } catch (MalformedStructureException e) {
                throw new IllegalStateException(where(sources, "LIBNVME_HOSTNQN", nqnFile) + ": " + e.getMessage(),
                        e);
            }
        }).orElse(null);
        UUID id = givenHostId != null ? givenHostId : configured(sources, "LIBNVME_HOSTID", idFile).map(text -> {
            if (!UUID_TEXT.matcher(text).matches()) {
                throw new IllegalStateException(where(sources, "LIBNVME_HOSTID", idFile) + ": not a UUID: \"" + text
                        + "\"");
            }
            return UUID.fromString(text);
        }).orElse(null);
        if (id == null && nqn != null) {
            id = nqn.uuid().orElse(null);
        }
        boolean generated = false;
        if (id == null) {
            id = systemUuid(sources.productUuid()).orElse(null);
        }
        if (id == null) {
            id = UUID.randomUUID();
            generated = true;
        }
        if (nqn == null) {
            nqn = Nqn.hostNqnFor(id);
        }
        return new Resolved(new HostIdentity(nqn, id), generated);
    }

    /**
     * The host NQN {@code nvme gen-hostnqn} prints: {@code nqn.2014-08.org.nvmexpress:uuid:} and the system UUID, or
     * a random UUID where there is none.
     */
    public static Nqn generateHostNqn(Sources sources) {
        return Nqn.hostNqnFor(systemUuid(sources.productUuid()).orElseGet(UUID::randomUUID));
    }

    /**
     * The host NQN {@code nvme show-hostnqn} prints: the configured one ({@code LIBNVME_HOSTNQN}, the hostnqn file),
     * else {@link #generateHostNqn}.
     */
    public static Nqn showHostNqn(Sources sources) {
        Path nqnFile = sources.directory().resolve("hostnqn");
        return configured(sources, "LIBNVME_HOSTNQN", nqnFile).map(text -> {
            try {
                return Nqn.parse(text);
            } catch (MalformedStructureException e) {
                throw new IllegalStateException(where(sources, "LIBNVME_HOSTNQN", nqnFile) + ": " + e.getMessage(),
                        e);
            }
        }).orElseGet(() -> generateHostNqn(sources));
    }

    /**
     * The SMBIOS system UUID in {@code productUuid}: its first line must be exactly a UUID's 36 characters, as libnvme
     * requires. The all-zero UUID, which firmware without a system UUID reports, is no identity.
     */
    public static Optional<UUID> systemUuid(Path productUuid) {
        if (productUuid == null) {
            return Optional.empty();
        }
        return firstLine(productUuid)
                .filter(line -> UUID_TEXT.matcher(line).matches())
                .map(UUID::fromString)
                .filter(uuid -> !uuid.equals(ZERO));
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

    /**
     * The environment variable's value (libnvme: set but empty means "no value", without falling back to the file),
     * else the file's first line.
     */
    private static Optional<String> configured(Sources sources, String variable, Path file) {
        String value = sources.environment().apply(variable);
        if (value != null) {
            String v = value.strip();
            return v.isEmpty() ? Optional.empty() : Optional.of(v);
        }
        return firstLine(file);
    }

    private static String where(Sources sources, String variable, Path file) {
        return sources.environment().apply(variable) != null ? variable : file.toString();
    }

    private static Optional<String> firstLine(Path file) {
        if (!Files.isReadable(file)) {
            return Optional.empty();
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int nl = text.indexOf('\n');
            String line = (nl >= 0 ? text.substring(0, nl) : text).strip();
            return line.isEmpty() ? Optional.empty() : Optional.of(line);
        } catch (IOException e) {
            return Optional.empty();   // unreadable (a sysfs file root alone may read): as absent, like libnvme
        }
    }
}
