package io.nvmf4j.initiator;

import java.util.ServiceLoader;

/**
 * The host transports on the module or class path, looked up by name like Linux {@code nvmf_lookup_transport()}.
 * The transport packages depend on this one, never the reverse: the module declares the providers.
 */
final class Transports {

    /** The NVMe/RDMA transport, the default. */
    static final HostTransport RDMA = find("rdma");

    private Transports() {
    }

    /** The transport the options name ({@code -t}). */
    static HostTransport of(ConnectOptions options) {
        return options.transport().equals(RDMA.name()) ? RDMA : find(options.transport());
    }

    static HostTransport find(String name) {
        for (HostTransport t : ServiceLoader.load(HostTransport.class, Transports.class.getClassLoader())) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalStateException("no host transport named " + name);
    }
}
