package io.nvmf4j.verbs.ibverbs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The native resources made from one parent (device, protection domain), closed in reverse order of creation
 * when the parent closes. Children remove themselves when closed first.
 */
final class Resources {
    private final Set<AutoCloseable> open = new LinkedHashSet<>();
    private boolean closing;

    synchronized <T extends AutoCloseable> T add(T resource) {
        open.add(resource);
        return resource;
    }

    synchronized void remove(AutoCloseable resource) {
        if (!closing) {
            open.remove(resource);
        }
    }

    /** Closes every resource still open, newest first; failures are collected, not thrown midway. */
    void closeAll() {
        List<AutoCloseable> toClose;
        synchronized (this) {
            closing = true;
            toClose = new ArrayList<>(open);
            open.clear();
        }
        RuntimeException first = null;
        for (AutoCloseable resource : toClose.reversed()) {
            try {
                resource.close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IllegalStateException("closing " + resource + " failed", e);
                }
            }
        }
        synchronized (this) {
            closing = false;
        }
        if (first != null) {
            throw first;
        }
    }
}
