package io.nvmf4j.config;

import java.nio.file.Path;

/**
 * What stores a namespace's blocks: nvmetcli's {@code device} of a namespace (a path), or an nvmf4j RAM namespace.
 * Named after nvmetcli rather than "backend" so it does not clash with the target's running
 * {@code io.nvmf4j.target.backend.NamespaceBackend} that it is opened into.
 */
public sealed interface DeviceConfig {

    /** A regular file or block device ({@code device.path} in nvmetcli's schema). */
    record FileDevice(Path path) implements DeviceConfig {
    }

    /** Memory of a fixed size, lost at exit ({@code nvmf4j.ram_namespaces}). */
    record RamDevice(long sizeBytes) implements DeviceConfig {
    }
}
