package io.nvmf4j.cli.dhchap;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.protocol.auth.DhchapSecret;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j gen-dhchap-key}: a DH-HMAC-CHAP secret in the standard representation (NVMe Base 2.0, 8.13.5.8),
 * byte for byte what {@code nvme gen-dhchap-key} (nvme-cli 2.3, libnvme 1.3) prints for the same options, with the
 * same option checks and messages (nvme-cli's {@code gen_dhchap_key()}). With {@code --hmac} 1-3 the key printed is
 * the secret already transformed with the NQN, as libnvme's {@code nvme_gen_dhchap_key()} does.
 */
@Command(name = "gen-dhchap-key", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {"Generate a DH-HMAC-CHAP host or controller key (like nvme gen-dhchap-key).",
            "Prints DHHC-1:<hmac>:<base64 key + CRC-32>: for nvmf4j serve --config (hosts[].dhchap.key), nvmf4j ctl"
                + " add-host --dhchap-key, nvme connect --dhchap-secret and Linux nvmet's dhchap_key."})
public final class GenDhchapKeyCli implements Callable<Integer> {

    /** Where nvme-cli reads the host NQN when --nqn is not given (nvmf_hostnqn_from_file()). */
    static Path hostNqnFile = Path.of("/etc/nvme/hostnqn");

    @Option(names = {"-s", "--secret"}, paramLabel = "HEX",
            description = "Secret to use (hex); default: random bytes.")
    String secret;

    @Option(names = {"-l", "--key-length"}, paramLabel = "32|48|64",
            description = "Length of the key in bytes (default: the hash's length, else 32).")
    int keyLength;

    @Option(names = {"-m", "--hmac"}, paramLabel = "0-3",
            description = "HMAC the key is transformed with: 0 none, 1 SHA-256, 2 SHA-384, 3 SHA-512 (default 0).")
    int hmac;

    @Option(names = {"-n", "--nqn"}, paramLabel = "NQN",
            description = "Host NQN the key is transformed with (default: /etc/nvme/hostnqn).")
    String nqn;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String problem = check();
        if (problem != null) {
            err.println(problem);
            err.flush();
            return 1;
        }
        byte[] raw;
        if (secret != null) {
            raw = parseSecret(secret);
            if (raw == null) {
                err.println("Invalid secret '" + secret + "'");
                err.flush();
                return 1;
            }
            if (raw.length != keyLength) {
                err.println("Invalid key length (" + raw.length + " bytes)");
                err.flush();
                return 1;
            }
        } else {
            raw = new byte[keyLength];
            new SecureRandom().nextBytes(raw);
        }
        try {
            String hostNqn = nqn;
            if (hmac > 0 && hostNqn == null) {
                hostNqn = readHostNqn();
                if (hostNqn == null) {
                    err.println("Could not read host NQN");
                    err.flush();
                    return 1;
                }
            }
            out.println(DhchapSecret.nvmeCliSecret(hmac, raw, hostNqn).format());
            out.flush();
            return 0;
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /** nvme-cli 2.3's checks, in its order and words; also fixes the default key length. */
    private String check() {
        if (hmac < 0 || hmac > 3) {
            return "Invalid HMAC identifier " + hmac;
        }
        if (hmac > 0) {
            int wanted = 16 + 16 * hmac; // 32, 48, 64: the hash's output length
            if (keyLength == 0) {
                keyLength = wanted;
            } else if (keyLength != wanted) {
                return "Invalid key length " + keyLength + " for SHA(" + List.of(256, 384, 512).get(hmac - 1) + ")";
            }
        } else if (keyLength == 0) {
            keyLength = 32;
        }
        if (keyLength != 32 && keyLength != 48 && keyLength != 64) {
            return "Invalid key length " + keyLength;
        }
        return null;
    }

    /**
     * Hex pairs as nvme-cli reads them ({@code sscanf(&secret[i], "%02x")} every two characters): a pair may be a
     * single trailing digit; anything else that is not hex is invalid.
     */
    static byte[] parseSecret(String hex) {
        byte[] out = new byte[(hex.length() + 1) / 2];
        int n = 0;
        for (int i = 0; i < hex.length(); i += 2) {
            int hi = Character.digit(hex.charAt(i), 16);
            if (hi < 0) {
                return null;
            }
            int value = hi;
            if (i + 1 < hex.length()) {
                int lo = Character.digit(hex.charAt(i + 1), 16);
                if (lo >= 0) {
                    value = hi * 16 + lo;
                }
            }
            out[n++] = (byte) value;
        }
        return Arrays.copyOf(out, n);
    }

    private static String readHostNqn() {
        try {
            List<String> lines = Files.readAllLines(hostNqnFile, StandardCharsets.UTF_8);
            String first = lines.isEmpty() ? "" : lines.getFirst().strip();
            return first.isEmpty() ? null : first;
        } catch (IOException e) {
            return null;
        }
    }
}
