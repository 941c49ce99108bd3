package io.nvmf4j.config;

import java.nio.file.Path;

/** What stores a namespace's blocks. */
public sealed interface NamespaceBackend {

    /** A regular file or block device ({@code device.path} in nvmetcli's schema). */
    record FileBackend(Path path) implements NamespaceBackend {
    }

    /** Memory of a fixed size, lost at exit ({@code nvmf4j.ram_namespaces}). */
    record RamBackend(long sizeBytes) implements NamespaceBackend {
    }
}
