package io.nvmf4j.config;

import io.nvmf4j.protocol.Nqn;
import java.nio.charset.StandardCharsets;

/**
 * NVMe Qualified Name checks for configuration files (NVMe Base 2.0, 4.5 NVMe Qualified Names).
 *
 * <p>The spec's rules are {@link Nqn}'s. Linux nvmet, however, accepts any name that is a valid configfs directory
 * name, and nvmetcli's own examples use {@code "testnqn"} and {@code "hostnqn"}; so a name {@link Nqn} rejects is
 * a warning here (it loads, as with nvmetcli), while an empty name, one over 223 bytes, or one Linux could not
 * create (a '/', whitespace or control characters) is an error.
 */
final class NqnRules {

    static final int MAX_BYTES = Nqn.MAX_LENGTH;
    static final String DISCOVERY_NQN = Nqn.DISCOVERY_VALUE;

    private NqnRules() {
    }

    /** Why this cannot be an NQN at all, or null. */
    static String error(String nqn) {
        if (nqn.isEmpty()) {
            return "must not be empty";
        }
        int bytes = nqn.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            return "NQN is " + bytes + " bytes long, at most " + MAX_BYTES + " are allowed";
        }
        for (int i = 0; i < nqn.length(); i++) {
            char c = nqn.charAt(i);
            if (c == '/' || Character.isWhitespace(c) || Character.isISOControl(c)) {
                return "NQN \"" + nqn + "\" contains " + describe(c) + ", which cannot appear in an NQN";
            }
        }
        return null;
    }

    /** Which spec rule the name breaks, or null when it is a spec-form NQN. */
    static String specViolation(String nqn) {
        return Nqn.standardViolation(nqn);
    }

    private static String describe(char c) {
        return switch (c) {
            case '/' -> "'/'";
            case ' ' -> "a space";
            default -> String.format("the character U+%04X", (int) c);
        };
    }
}
