package io.nvmf4j.config;

/**
 * One thing wrong (or worth a warning) in a configuration, located in its source.
 *
 * @param path    the field path in the JSON document, e.g. {@code subsystems[0].namespaces[1].nsid};
 *                empty for problems with the document as a whole (malformed JSON)
 * @param line    1-based line in the source, 0 when the problem has no position (a command-line value)
 * @param column  1-based column in the source, 0 when unknown
 * @param message what is wrong, in words a user can act on
 */
public record ConfigProblem(String path, int line, int column, String message) {

    /**
     * One line, compiler style: {@code config.json:14: subsystems[0].namespaces[1].nsid: must be ...}.
     * Malformed JSON carries the column too ({@code config.json:3:7: ...}), since the field path is unknown there.
     */
    public String format(String source) {
        StringBuilder sb = new StringBuilder(source);
        if (line > 0) {
            sb.append(':').append(line);
            if (path.isEmpty() && column > 0) {
                sb.append(':').append(column);
            }
        }
        sb.append(": ");
        if (!path.isEmpty()) {
            sb.append(path).append(": ");
        }
        return sb.append(message).toString();
    }
}
