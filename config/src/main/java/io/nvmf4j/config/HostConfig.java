package io.nvmf4j.config;

/** A host NQN declared under {@code hosts}: nvmetcli's {@code Host}, Linux {@code nvmet_host}. */
public record HostConfig(String nqn) {
}
