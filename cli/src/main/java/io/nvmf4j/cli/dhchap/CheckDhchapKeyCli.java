package io.nvmf4j.cli.dhchap;

import io.nvmf4j.cli.VersionProvider;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.protocol.auth.InvalidDhchapSecretException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.zip.CRC32;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nvmf4j check-dhchap-key}: validates a secret in the standard representation as {@code nvme
 * check-dhchap-key} does, with its success line ("Key is valid (HMAC h, length n, CRC xxxxxxxx)"). Unlike nvme-cli,
 * the failure messages never repeat the key.
 */
@Command(name = "check-dhchap-key", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Check a DH-HMAC-CHAP key (DHHC-1:hh:base64:) for format and CRC (like nvme check-dhchap-key).")
public final class CheckDhchapKeyCli implements Callable<Integer> {

    @Option(names = {"-k", "--key"}, paramLabel = "KEY", required = true, description = "The key to check.")
    String key;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DhchapSecret secret;
        try {
            secret = DhchapSecret.parse(key);
        } catch (InvalidDhchapSecretException e) {
            err.println("Invalid key: " + e.getMessage());
            err.flush();
            return 1;
        }
        CRC32 crc = new CRC32();
        byte[] k = secret.key();
        crc.update(k);
        java.util.Arrays.fill(k, (byte) 0);
        out.printf("Key is valid (HMAC %d, length %d, CRC %08x)%n", secret.hashId(), secret.keyLength(),
                crc.getValue());
        out.flush();
        return 0;
    }
}
