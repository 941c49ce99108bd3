package io.nvmf4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version stamped into the jar at build time, plus the runtime it runs on. */
public final class VersionProvider implements IVersionProvider {

    /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException("reading version.properties", e);
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "nvmf4j " + version(),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", " + System.getProperty("java.home") + ")"
        };
    }
}
