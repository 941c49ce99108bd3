package io.nvmf4j.cli.host;

import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.protocol.auth.InvalidDhchapSecretException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * The value of {@code -S/--dhchap-secret} and {@code -C/--dhchap-ctrl-secret}: the secret itself as nvme-cli takes
 * it ({@code DHHC-1:hh:<base64>:}), or, an nvmf4j convenience, the path of a file holding it (a secret on the
 * command line is visible to every user in {@code ps}). A key file readable by group or others gets a warning, as
 * ssh does for private keys. Neither the secret nor the file's content ever appears in a message.
 */
final class DhchapSecretOption {

    private DhchapSecretOption() {
    }

    /** The parsed secret; null for null. */
    static DhchapSecret parse(String option, String value, PrintStream warnings) {
        if (value == null) {
            return null;
        }
        String text = value;
        if (!value.startsWith(DhchapSecret.PREFIX)) {
            Path file = Path.of(value);
            if (!Files.isRegularFile(file)) {
                throw new UsageProblem(option + ": not a DH-HMAC-CHAP secret (DHHC-1:hh:...:, as nvme "
                        + "gen-dhchap-key prints) nor a readable key file");
            }
            warnIfExposed(option, file, warnings);
            try {
                text = Files.readString(file).strip();
            } catch (IOException | RuntimeException e) {
                throw new UsageProblem(option + ": cannot read key file " + file + ": " + e.getClass().getSimpleName());
            }
        }
        try {
            return DhchapSecret.parse(text);
        } catch (InvalidDhchapSecretException e) {
            throw new UsageProblem(option + ": " + e.getMessage());
        }
    }

    static void warnIfExposed(String option, Path file, PrintStream warnings) {
        try {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
            if (p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)) {
                warnings.println("nvmf4j: warning: " + option + " key file " + file
                        + " is readable by group or others; chmod 600 it");
            }
        } catch (IOException | UnsupportedOperationException e) {
            // no POSIX permissions here (or a symlink): nothing to check
        }
    }
}
