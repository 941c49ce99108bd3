package io.nvmf4j.config;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A subsystem while the configuration is being read: namespaces still change (RAM namespaces, block sizes). */
final class SubsystemDraft {

    final String nqn;
    final String path;
    final SubsystemAttributes attr;
    final List<String> allowedHosts;
    final Map<Long, NamespaceConfig> namespaces = new LinkedHashMap<>();
    final Map<Long, JsonTree> namespaceNodes = new HashMap<>();

    SubsystemDraft(String nqn, String path, SubsystemAttributes attr, List<String> allowedHosts) {
        this.nqn = nqn;
        this.path = path;
        this.attr = attr;
        this.allowedHosts = allowedHosts;
    }
}
