/**
 * Target configuration: nvmetcli {@code saveconfig.json} plus nvmf4j's own section, validated with field and line.
 * Reads the protocol module's names (NQNs); Jackson's streaming parser only (no data binding, so nothing is opened).
 */
module io.nvmf4j.config {
    requires transitive io.nvmf4j.protocol;
    requires com.fasterxml.jackson.core;

    exports io.nvmf4j.config;
}
