package io.nvmf4j.config;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads and validates a configuration file in nvmetcli's {@code saveconfig.json} schema (plus the optional
 * {@code "nvmf4j"} section). All problems are collected and thrown together as one {@link ConfigException}.
 *
 * <pre>{@code
 * LoadedConfig loaded = ConfigLoader.standard().load(Path.of("/etc/nvmet/config.json"));
 * log.warn(loaded.formatWarnings());
 * TargetConfig config = loaded.config();
 * }</pre>
 */
public final class ConfigLoader {

    private final boolean checkDevicePaths;
    private final Set<UnsupportedFeature> allowedUnsupported;

    private ConfigLoader(boolean checkDevicePaths, Set<UnsupportedFeature> allowedUnsupported) {
        this.checkDevicePaths = checkDevicePaths;
        this.allowedUnsupported = Set.copyOf(allowedUnsupported);
    }

    /** Checks everything, including that enabled namespaces' files and block devices exist. */
    public static ConfigLoader standard() {
        return new ConfigLoader(true, Set.of());
    }

    /**
     * Checks everything except whether device paths exist: for checking a configuration meant for another machine
     * (a file naming {@code /dev/nvme0n1} loads here even without that device).
     */
    public static ConfigLoader withoutDevicePathChecks() {
        return new ConfigLoader(false, Set.of());
    }

    /**
     * This loader, but a file using one of {@code features} loads with a warning (the feature is not served)
     * instead of failing: {@code serve --config-allow-unsupported NAME}. Without it, every {@link UnsupportedFeature}
     * is an error naming its field and line.
     */
    public ConfigLoader allowingUnsupported(Set<UnsupportedFeature> features) {
        return new ConfigLoader(checkDevicePaths, features);
    }

    /** Loads a file; problems are reported against the path as given. Relative device paths resolve against the
     * file's directory. */
    public LoadedConfig load(Path file) throws ConfigException {
        String source = file.toString();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException(source, List.of(new ConfigProblem("", 0, 0, "no such file")));
        } catch (MalformedInputException e) {
            throw new ConfigException(source, List.of(new ConfigProblem("", 0, 0, "not UTF-8 text")));
        } catch (IOException e) {
            throw new ConfigException(source, List.of(new ConfigProblem("", 0, 0,
                    "cannot read the file: " + e.getMessage())));
        }
        Path dir = file.toAbsolutePath().getParent();
        return parse(text, source, dir);
    }

    /**
     * Parses JSON text. {@code source} names it in problems; {@code baseDir} resolves relative device paths (null:
     * the working directory).
     */
    public LoadedConfig parse(String json, String source, Path baseDir) throws ConfigException {
        List<ConfigProblem> syntaxProblems = new ArrayList<>();
        JsonTree root;
        try {
            root = JsonTree.parse(json, syntaxProblems);
        } catch (JsonTree.MalformedJson e) {
            throw new ConfigException(source, List.of(e.problem()));
        }
        ConfigReader reader = new ConfigReader(baseDir, checkDevicePaths, allowedUnsupported);
        TargetConfig config = reader.read(root);
        List<ConfigProblem> errors = new ArrayList<>(reader.errors());
        List<ConfigProblem> warnings = new ArrayList<>(syntaxProblems);
        warnings.addAll(reader.warnings());
        if (!errors.isEmpty()) {
            errors.sort(java.util.Comparator.comparingInt(ConfigProblem::line));
            throw new ConfigException(source, errors);
        }
        warnings.sort(java.util.Comparator.comparingInt(ConfigProblem::line));
        return new LoadedConfig(config, warnings, source);
    }
}
