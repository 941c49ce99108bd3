package io.nvmf4j.config;

import com.fasterxml.jackson.core.JsonToken;
import io.nvmf4j.config.JsonTree.JArray;
import io.nvmf4j.config.JsonTree.JObject;
import io.nvmf4j.config.JsonTree.JScalar;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reading typed values out of a located JSON tree with nvmetcli's leniency (strings or numbers, kstrtobool words),
 * recording every problem with its field path and line instead of stopping at the first. The section readers
 * extend this and share one problem list.
 */
class FieldReader {

    /** NVMET_MAX_ANAGRPS in Linux drivers/nvme/target/nvmet.h. */
    static final int MAX_ANA_GROUPS = 128;

    private final List<ConfigProblem> errors;
    private final List<ConfigProblem> warnings;
    /** Names already reported as invalid: references to them would only repeat the same problem. */
    final Set<String> rejectedNames;
    /** Unsupported features the user chose to have ignored with a warning instead of failing the load. */
    private final Set<UnsupportedFeature> allowedUnsupported;

    FieldReader(Set<UnsupportedFeature> allowedUnsupported) {
        this.errors = new ArrayList<>();
        this.warnings = new ArrayList<>();
        this.rejectedNames = new HashSet<>();
        this.allowedUnsupported = Set.copyOf(allowedUnsupported);
    }

    /** A reader that reports into the same lists as {@code shared}. */
    FieldReader(FieldReader shared) {
        this.errors = shared.errors;
        this.warnings = shared.warnings;
        this.rejectedNames = shared.rejectedNames;
        this.allowedUnsupported = shared.allowedUnsupported;
    }

    /**
     * A feature nvmf4j does not implement and that would weaken security or change what hosts see if ignored: an
     * error naming the field, unless the user allowed it ({@code --config-allow-unsupported NAME}), then a warning.
     */
    final void unsupported(JsonTree at, String path, UnsupportedFeature feature, String what) {
        if (allowedUnsupported.contains(feature)) {
            warning(at, path, what + ": " + feature.description() + " not supported by nvmf4j, ignored as"
                    + " --config-allow-unsupported " + feature.flagName() + " asks");
        } else {
            error(at, path, what + ": " + feature.description() + " not supported by nvmf4j (serving without it"
                    + " would change what hosts get; --config-allow-unsupported " + feature.flagName()
                    + " ignores it)");
        }
    }

    List<ConfigProblem> errors() {
        return errors;
    }

    List<ConfigProblem> warnings() {
        return warnings;
    }

    int blockSize(JsonTree node, String path, int fallback) {
        Long v = integer(node, path, Long.MIN_VALUE, Long.MAX_VALUE);
        if (v == null) {
            return fallback;
        }
        if (v != 512 && v != 4096) {
            error(node, path, "must be 512 or 4096, got " + v);
            return fallback;
        }
        return v.intValue();
    }

    Long size(JsonTree node, String path) {
        if (node instanceof JScalar s && (s.token().isNumeric() || s.token() == JsonToken.VALUE_STRING)) {
            Long v = Values.parseSize(s.text());
            if (v != null) {
                return v;
            }
        }
        error(node, path, "must be a size such as \"1G\", \"512M\" or a number of bytes, got " + shown(node));
        return null;
    }

    String nqn(JsonTree node, String path) {
        String nqn = string(node, path);
        if (nqn == null) {
            return null;
        }
        String why = NqnRules.error(nqn);
        if (why != null) {
            error(node, path, why);
            rejectedNames.add(nqn);
            return null;
        }
        String violation = NqnRules.specViolation(nqn);
        if (violation != null) {
            warning(node, path, "\"" + nqn + "\" is not an NVMe-form NQN (" + violation
                    + "); accepted, as Linux nvmet does");
        }
        return nqn;
    }

    byte[] nguid(JsonTree node, String path) {
        if (node == null || isNull(node)) {
            return null;
        }
        String text = string(node, path);
        if (text == null) {
            return null;
        }
        // Linux nvmet_ns_device_nguid_store(): 16 hex pairs, each optionally followed by '-' or ':'.
        String hex = text.strip().replaceAll("(?<=[0-9a-fA-F]{2})[-:]", "");
        if (!hex.matches("[0-9a-fA-F]{32}")) {
            error(node, path, "must be 16 bytes of hex (e.g. \"ef90689c-6c46-d44c-89c1-4067801309a8\"), got \""
                    + text + "\"");
            return null;
        }
        byte[] bytes = java.util.HexFormat.of().parseHex(hex);
        return allZero(bytes) ? null : bytes;
    }

    UUID uuid(JsonTree node, String path) {
        if (node == null || isNull(node)) {
            return null;
        }
        String text = string(node, path);
        if (text == null) {
            return null;
        }
        if (!text.strip().matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            error(node, path, "must be a UUID such as \"d592cdf3-5d1c-44e0-8412-3fcf7d99df27\", got \"" + text
                    + "\"");
            return null;
        }
        UUID uuid = UUID.fromString(text.strip());
        // Linux shows an unset uuid as all zeroes (%pUb of a zeroed uuid_t): the same as no uuid.
        return uuid.getMostSignificantBits() == 0 && uuid.getLeastSignificantBits() == 0 ? null : uuid;
    }

    static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    String printable(JsonTree node, String path, int max, String what) {
        if (node == null || isNull(node)) {
            return null;
        }
        String text = string(node, path);
        if (text == null) {
            return null;
        }
        if (text.isEmpty() || text.length() > max) {
            error(node, path, what + " must be 1 to " + max + " characters, got " + text.length());
            return null;
        }
        // "See Section 1.5 of NVMe 1.4": ASCII strings are printable characters 20h-7Eh (nvmet_is_ascii()).
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                error(node, path, what + " must be printable ASCII, got \"" + text + "\"");
                return null;
            }
        }
        return text;
    }

    long intOr(JsonTree node, String path, long min, long max, long fallback) {
        if (node == null || isNull(node)) {
            return fallback;
        }
        Long v = integer(node, path, min, max);
        return v == null ? fallback : v;
    }

    Long integer(JsonTree node, String path, long min, long max) {
        Long v = null;
        if (node instanceof JScalar s && (s.token() == JsonToken.VALUE_NUMBER_INT
                || s.token() == JsonToken.VALUE_STRING)) {
            v = Values.parseInteger(s.text());
        }
        if (v == null) {
            error(node, path, "must be an integer, got " + shown(node));
            return null;
        }
        if (v < min || v > max) {
            error(node, path, "must be between " + min + " and " + max + ", got " + v);
            return null;
        }
        return v;
    }

    boolean bool(JsonTree node, String path, boolean fallback) {
        Boolean v = null;
        if (node instanceof JScalar s) {
            v = switch (s.token()) {
                case VALUE_TRUE -> true;
                case VALUE_FALSE -> false;
                case VALUE_NUMBER_INT, VALUE_STRING -> Values.parseBoolean(s.text());
                default -> null;
            };
        }
        if (v == null) {
            error(node, path, "must be 1 or 0 (or true/false), got " + shown(node));
            return fallback;
        }
        return v;
    }

    /** A string; numbers are taken as their text, since nvmetcli writes some values either way. */
    String string(JsonTree node, String path) {
        if (node instanceof JScalar s && (s.token() == JsonToken.VALUE_STRING
                || s.token().isNumeric())) {
            return s.text();
        }
        error(node, path, "must be a string, got " + shown(node));
        return null;
    }

    static String shown(JsonTree node) {
        if (node instanceof JScalar s && s.token() == JsonToken.VALUE_STRING) {
            return "\"" + s.text() + "\"";
        }
        if (node instanceof JScalar s && !s.isNull()) {
            return s.text();
        }
        return node.kind();
    }

    JObject object(JsonTree node, String path) {
        if (node instanceof JObject o) {
            return o;
        }
        error(node, path, "must be an object, got " + shown(node));
        return null;
    }

    /** The items of an optional array field; absent or null is an empty list (nvmetcli uses .get(key, [])). */
    List<JsonTree> list(JObject parent, String key, String path) {
        JsonTree node = parent.fields().get(key);
        if (node == null || isNull(node)) {
            return List.of();
        }
        if (node instanceof JArray a) {
            return a.items();
        }
        error(node, path, "must be an array, got " + shown(node));
        return List.of();
    }

    JsonTree required(JObject parent, String key, String parentPath) {
        JsonTree node = parent.fields().get(key);
        if (node == null || isNull(node)) {
            error(node == null ? parent : node, parentPath + "." + key, "is required");
            return null;
        }
        return node;
    }

    void unknownFields(JObject o, String path, Set<String> known) {
        for (Map.Entry<String, JsonTree> e : o.fields().entrySet()) {
            if (!known.contains(e.getKey())) {
                String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                warning(e.getValue(), p, "unknown field, ignored");
            }
        }
    }

    static boolean isNull(JsonTree node) {
        return node instanceof JScalar s && s.isNull();
    }

    final void error(JsonTree at, String path, String message) {
        errors.add(new ConfigProblem(path, at.line(), at.column(), message));
    }

    final void warning(JsonTree at, String path, String message) {
        warnings.add(new ConfigProblem(path, at.line(), at.column(), message));
    }
}
