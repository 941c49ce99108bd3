package io.nvmf4j.cli.serve;

import io.nvmf4j.config.NamespaceConfig;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.TargetConfigurator;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * The backends of {@link LiveTarget}'s namespaces: opened for a new namespace, a file resized, and those of removed or
 * replaced namespaces flushed and closed {@link #RETIRE_DELAY_MILLIS} after they left the lookup table.
 */
final class NamespaceBackends implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LiveTarget.class.getName());

    /**
     * How long a removed or replaced namespace's backend stays open: a command that looked the namespace up just
     * before the removal may still be reading or writing it on a poll thread (nvmet waits for the namespace's
     * percpu_ref to drop, nvmet_ns_disable(); we have no per-namespace reference count on the data path, so we
     * wait much longer than any command takes). Closing it under such a command would turn its I/O into an error
     * the backend does not report as a status.
     */
    static final long RETIRE_DELAY_MILLIS = 2000;

    private final java.util.Set<SubsystemNamespace> retiring = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.ScheduledExecutorService retirer =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                    r -> Thread.ofPlatform().name("nvmf4j-retire").daemon().unstarted(r));

    static SubsystemNamespace open(String nqn, NamespaceConfig nc) throws RpcError {
        try {
            SubsystemNamespace ns = TargetConfigurator.namespace(nqn, nc);
            if (ns == null) {
                throw RpcError.invalidParams("namespace " + nc.nsid() + " has no device path");
            }
            return ns;
        } catch (IOException | IllegalArgumentException e) {
            throw RpcError.invalidParams(e.getMessage());
        }
    }

    /** Extends or truncates the file of a file namespace to {@code bytes}. */
    static void setLength(java.nio.file.Path path, long bytes) throws RpcError {
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
            f.setLength(bytes);
        } catch (IOException e) {
            throw RpcError.refused("resizing " + path + ": " + e.getMessage());
        }
    }

    /** Flushes now (what was acknowledged is durable) and closes after {@link #RETIRE_DELAY_MILLIS}. */
    void retire(SubsystemNamespace ns) {
        try {
            ns.backend().flush();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "flushing {0}: {1}", ns, e.getMessage());
        }
        retiring.add(ns);
        try {
            retirer.schedule(() -> {
                if (retiring.remove(ns)) {
                    closeBackend(ns);
                }
            }, RETIRE_DELAY_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            retiring.remove(ns);
            closeBackend(ns);
        }
    }

    /** Closes the backends still waiting to retire (at daemon stop, after the transport has stopped). */
    @Override
    public void close() {
        retirer.shutdownNow();
        for (SubsystemNamespace ns : List.copyOf(retiring)) {
            if (retiring.remove(ns)) {
                closeBackend(ns);
            }
        }
    }

    static void closeBackend(SubsystemNamespace ns) {
        try {
            ns.backend().flush();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "flushing {0}: {1}", ns, e.getMessage());
        }
        ns.backend().close();
    }
}
