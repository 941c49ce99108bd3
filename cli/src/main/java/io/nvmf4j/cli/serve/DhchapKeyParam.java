package io.nvmf4j.cli.serve;

import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.protocol.auth.InvalidDhchapSecretException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code dhchap_key} / {@code dhchap_ctrlr_key} parameters of {@code nvmf_subsystem_add_host} (SPDK's names).
 * SPDK takes the name of a keyring key there; nvmf4j has no keyring and takes the secret itself
 * ({@code DHHC-1:hh:<base64>:}) or the path of a key file the daemon reads, refused unless only its owner can read
 * it, as SPDK's {@code keyring_file} refuses a key file with other permissions than 0600. Messages never contain
 * the secret.
 */
final class DhchapKeyParam {

    private static final Set<PosixFilePermission> EXPOSED = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    private DhchapKeyParam() {
    }

    /** The secret, or null when {@code value} is null. */
    static DhchapSecret parse(String param, String value) throws RpcError {
        if (value == null) {
            return null;
        }
        String text = value;
        if (!value.startsWith(DhchapSecret.PREFIX)) {
            Path file = Path.of(value);
            if (!Files.isRegularFile(file)) {
                throw RpcError.invalidParams(param + ": not a DH-HMAC-CHAP secret (DHHC-1:hh:...:, as nvme"
                        + " gen-dhchap-key prints) nor a key file");
            }
            try {
                Set<PosixFilePermission> p = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
                if (p.stream().anyMatch(EXPOSED::contains)) {
                    throw RpcError.invalidParams(param + ": key file " + file + " is accessible to group or others;"
                            + " chmod 600 it");
                }
                text = Files.readString(file).strip();
            } catch (IOException | UnsupportedOperationException e) {
                throw RpcError.invalidParams(param + ": cannot read key file " + file + ": "
                        + e.getClass().getSimpleName());
            }
        }
        try {
            return DhchapSecret.parse(text);
        } catch (InvalidDhchapSecretException e) {
            throw RpcError.invalidParams(param + ": " + e.getMessage());
        }
    }
}
