package io.nvmf4j.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A configuration that passed validation, with the warnings found on the way (unknown nvmetcli fields, NQNs outside
 * the spec's forms, namespaces left disabled...). The daemon should log the warnings and go on.
 *
 * @param source the name problems are reported against (the file name as given, or "command line")
 */
public record LoadedConfig(TargetConfig config, List<ConfigProblem> warnings, String source) {

    public LoadedConfig {
        warnings = List.copyOf(warnings);
    }

    /** One warning per line, each prefixed with "warning: ", or the empty string. */
    public String formatWarnings() {
        return warnings.stream().map(w -> "warning: " + w.format(source)).collect(Collectors.joining("\n"));
    }
}
