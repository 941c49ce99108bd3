package io.nvmf4j.config;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * NVMe Qualified Name checks (NVMe 1.4, 7.9 NVMe Qualified Names).
 *
 * <p>The spec's forms are {@code nqn.yyyy-mm.reverse.domain:anything} and
 * {@code nqn.2014-08.org.nvmexpress:uuid:<uuid>}, at most 223 bytes of UTF-8. Linux nvmet accepts any name that
 * is a valid configfs directory name, and nvmetcli's own examples use {@code "testnqn"} and {@code "hostnqn"}; so
 * a name outside the spec's forms is a warning (it loads, as with nvmetcli), while an empty name, one over 223
 * bytes, or one Linux could not create (a '/', whitespace or control characters) is an error.
 */
final class NqnRules {

    /** NVMF_NQN_SIZE in Linux include/linux/nvme.h. */
    static final int MAX_BYTES = 223;
    static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    private static final Pattern SPEC_FORM = Pattern.compile(
            "nqn\\.[0-9]{4}-(0[1-9]|1[0-2])\\.[A-Za-z0-9][A-Za-z0-9-]*(\\.[A-Za-z0-9][A-Za-z0-9-]*)*(:.+)?");
    private static final Pattern UUID_FORM = Pattern.compile(
            "nqn\\.2014-08\\.org\\.nvmexpress:uuid:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                    + "[0-9a-fA-F]{12}");

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

    /** Whether the name follows one of the spec's two forms. */
    static boolean isSpecForm(String nqn) {
        return UUID_FORM.matcher(nqn).matches() || SPEC_FORM.matcher(nqn).matches();
    }

    private static String describe(char c) {
        return switch (c) {
            case '/' -> "'/'";
            case ' ' -> "a space";
            default -> String.format("the character U+%04X", (int) c);
        };
    }
}
