package io.nvmf4j.protocol;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * An NVMe Qualified Name (NVMe Base 2.0, 4.5 "NVMe Qualified Names"): the name of a host or an NVM subsystem, UTF-8,
 * at most 223 bytes. The specification gives two forms,
 * <ul>
 *   <li>{@code nqn.yyyy-mm.<reverse domain name>:<string>}, e.g. {@code nqn.2014-08.com.example:nvme:disk1},
 *       where the date is a month in which the naming authority owned the domain;</li>
 *   <li>{@code nqn.2014-08.org.nvmexpress:uuid:<36-character UUID>}, for hosts and subsystems without a domain;</li>
 * </ul>
 * plus the well-known discovery subsystem NQN {@value #DISCOVERY_VALUE}.
 *
 * <p>What this type accepts is what Linux accepts, not only the specification's forms: Linux nvmet serves a
 * subsystem of any name (nvmetcli's own example is {@code testnqn}), and nvme-cli and the kernel host connect to
 * it, checking only that the name fits {@code NVMF_NQN_SIZE}. So {@link #parse} refuses what Linux refuses (empty,
 * more than 223 bytes, a NUL that would cut the name short on the wire) and nothing else; {@link #isStandard()}
 * and {@link #standardViolation} tell whether a name also follows the specification (the checks mirror SPDK's
 * {@code nvmf_nqn_is_valid()}), for those who warn about or insist on it ({@link #parseStandard}). On the wire an
 * NQN fills a 256-byte field, NUL-terminated and NUL-padded (Connect data SUBNQN/HOSTNQN, discovery log entry
 * SUBNQN, Identify Controller SUBNQN; Linux {@code NVMF_NQN_FIELD_LEN}).
 */
public final class Nqn {

    /** Longest NQN in bytes of UTF-8 (Linux {@code NVMF_NQN_SIZE} - 1). */
    public static final int MAX_LENGTH = 223;
    /** Size of the fixed field that carries an NQN. */
    public static final int FIELD_SIZE = 256;
    public static final String DISCOVERY_VALUE = "nqn.2014-08.org.nvmexpress.discovery";
    public static final String UUID_PREFIX = "nqn.2014-08.org.nvmexpress:uuid:";
    public static final Nqn DISCOVERY = new Nqn(DISCOVERY_VALUE);

    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    /** RFC 1034 label: a letter, then letters, digits or hyphens, ending in a letter or digit; at most 63. */
    private static final Pattern DOMAIN_LABEL = Pattern.compile("[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");

    private final String value;

    private Nqn(String value) {
        this.value = value;
    }

    /**
     * {@code text} as a name Linux would use: any text of 1 to 223 bytes of UTF-8 without NUL. The message of the
     * exception says which limit it breaks.
     */
    public static Nqn parse(String text) {
        if (text == null) {
            throw new MalformedStructureException("NQN is missing (null)");
        }
        String problem = unusable(text);
        if (problem != null) {
            throw new MalformedStructureException("invalid NQN \"" + printable(text) + "\": " + problem);
        }
        return text.equals(DISCOVERY_VALUE) ? DISCOVERY : new Nqn(text);
    }

    /**
     * {@code text} as an NQN of one of the specification's forms; the message of the exception says which rule it
     * breaks.
     */
    public static Nqn parseStandard(String text) {
        Nqn nqn = parse(text);
        String violation = standardViolation(text);
        if (violation != null) {
            throw new MalformedStructureException("invalid NQN \"" + printable(text) + "\": " + violation);
        }
        return nqn;
    }

    /** True when {@link #parse} would accept {@code text}. */
    public static boolean isValid(String text) {
        return text != null && unusable(text) == null;
    }

    /** True when {@code text} is an NQN of one of the specification's forms ({@link #parseStandard} accepts it). */
    public static boolean isStandard(String text) {
        return isValid(text) && standardViolation(text) == null;
    }

    /**
     * Which rule of the specification's NQN forms {@code text} breaks, or null when it follows one of them. Only the
     * form is judged: a text {@link #parse} refuses is reported by {@link #parse}.
     */
    public static String standardViolation(String text) {
        return formProblem(text);
    }

    /** Whether this name also follows one of the specification's forms. */
    public boolean isStandard() {
        return formProblem(value) == null;
    }

    /** {@code nqn.2014-08.org.nvmexpress:uuid:<uuid>}, the host NQN form nvme-cli's {@code gen-hostnqn} makes. */
    public static Nqn hostNqnFor(UUID uuid) {
        return new Nqn(UUID_PREFIX + uuid.toString());
    }

    /** A host NQN for a fresh random (version 4) UUID. */
    public static Nqn randomHostNqn() {
        return hostNqnFor(UUID.randomUUID());
    }

    public String value() {
        return value;
    }

    public boolean isDiscovery() {
        return value.equals(DISCOVERY_VALUE);
    }

    /** The UUID of a {@code nqn.2014-08.org.nvmexpress:uuid:} NQN; empty for other names (and a malformed UUID). */
    public Optional<UUID> uuid() {
        if (value.startsWith(UUID_PREFIX)) {
            String text = value.substring(UUID_PREFIX.length());
            if (UUID_TEXT.matcher(text).matches()) {
                return Optional.of(UUID.fromString(text));
            }
        }
        return Optional.empty();
    }

    /** Length in bytes of UTF-8, as the 223-byte limit counts it. */
    public int byteLength() {
        return value.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Writes this NQN into the first 256 bytes of {@code field}, NUL-padded. */
    public void encode(MemorySegment field) {
        writeField(field, value);
    }

    /**
     * Reads the NQN in a 256-byte field. Fails with a precise message when the field is shorter than 256 bytes, has
     * no NUL terminator within 256 bytes, holds more than 223 bytes, is empty or is not UTF-8; a name of no standard
     * form is returned as it is (a discovery log or Identify Controller from Linux nvmet may carry {@code testnqn}).
     */
    public static Nqn decode(MemorySegment field) {
        return parse(readField(field));
    }

    /**
     * The text in a 256-byte NQN field, checked only for termination, length and UTF-8: what a target compares
     * against its configured names (Linux nvmet compares with {@code strncmp} and does not check the format).
     */
    public static String readField(MemorySegment field) {
        MemorySegment f = Wire.require(field, FIELD_SIZE, "NQN field");
        int length = -1;
        for (int i = 0; i < FIELD_SIZE; i++) {
            if (Wire.u8(f, i) == 0) {
                length = i;
                break;
            }
        }
        if (length < 0) {
            throw new MalformedStructureException("NQN field is not NUL-terminated within its " + FIELD_SIZE + " bytes");
        }
        if (length > MAX_LENGTH) {
            throw new MalformedStructureException(
                    "NQN field holds " + length + " bytes before its NUL, more than the " + MAX_LENGTH + " an NQN may have");
        }
        if (length == 0) {
            throw new MalformedStructureException("NQN field is empty (first byte is NUL)");
        }
        byte[] bytes = f.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new MalformedStructureException("NQN field is not valid UTF-8 (" + length + " bytes)");
        }
    }

    /**
     * Writes {@code text} NUL-padded into a 256-byte field; used for names a peer chose that we echo back. The
     * text must fit in 223 bytes of UTF-8 and contain no NUL.
     */
    public static void writeField(MemorySegment field, String text) {
        MemorySegment f = Wire.requireDestination(field, FIELD_SIZE, "NQN field");
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_LENGTH) {
            throw new IllegalArgumentException("NQN of " + bytes.length + " bytes exceeds " + MAX_LENGTH);
        }
        if (text.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("NQN contains a NUL character");
        }
        f.fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, f, 0, bytes.length);
    }

    /** Why Linux could not use {@code text} as a name at all (it must fit a NUL-terminated 256-byte field), or null. */
    private static String unusable(String text) {
        if (text.isEmpty()) {
            return "empty";
        }
        int bytes = text.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_LENGTH) {
            return bytes + " bytes of UTF-8, more than " + MAX_LENGTH;
        }
        if (text.indexOf('\0') >= 0) {
            return "contains a NUL character at index " + text.indexOf('\0');
        }
        return null;
    }

    /** Which rule of the specification's forms {@code text} breaks, or null. */
    private static String formProblem(String text) {
        if (text.equals(DISCOVERY_VALUE)) {
            return null;
        }
        if (text.startsWith(UUID_PREFIX)) {
            String uuid = text.substring(UUID_PREFIX.length());
            if (!UUID_TEXT.matcher(uuid).matches()) {
                return "after \"" + UUID_PREFIX + "\" must come a UUID of the form "
                        + "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (36 hex digits and hyphens), found \"" + printable(uuid) + "\"";
            }
            return null;
        }
        if (!text.startsWith("nqn.")) {
            return "must begin with \"nqn.\"";
        }
        // nqn.yyyy-mm.
        if (text.length() < 12 || !isDigits(text, 4, 8) || text.charAt(8) != '-' || !isDigits(text, 9, 11)
                || text.charAt(11) != '.') {
            return "\"nqn.\" must be followed by a date code yyyy-mm and a '.' (e.g. nqn.2014-08.)";
        }
        int month = Integer.parseInt(text.substring(9, 11));
        if (month < 1 || month > 12) {
            return "month " + text.substring(9, 11) + " in the date code is not 01..12";
        }
        int colon = text.indexOf(':', 12);
        if (colon < 0) {
            return "the reverse domain name must be followed by ':' and a name chosen by its owner";
        }
        if (colon == text.length() - 1) {
            return "nothing follows the ':' after the reverse domain name";
        }
        String domain = text.substring(12, colon);
        if (domain.isEmpty()) {
            return "the reverse domain name after the date code is empty";
        }
        String[] labels = domain.split("\\.", -1);
        for (String label : labels) {
            if (label.isEmpty()) {
                return "the reverse domain name \"" + domain + "\" has an empty label";
            }
            if (label.length() > 63) {
                return "the label \"" + label + "\" of the reverse domain name is longer than 63 characters";
            }
            if (!DOMAIN_LABEL.matcher(label).matches()) {
                return "the label \"" + printable(label) + "\" of the reverse domain name must start with a letter, "
                        + "end with a letter or digit and contain only letters, digits and hyphens";
            }
        }
        return null;
    }

    private static boolean isDigits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** The text with control characters escaped, shortened for messages. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 80; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        if (b.length() >= 80 && s.length() > 80) {
            b.append("...");
        }
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Nqn other && other.value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return value;
    }
}
