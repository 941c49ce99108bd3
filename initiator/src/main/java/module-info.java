/**
 * The NVMe-oF host library: connect, discovery, namespace I/O, keep-alive and reconnect ({@code io.nvmf4j.initiator},
 * the API). A transport makes the host queues ({@code io.nvmf4j.initiator.HostTransport}); the RDMA one
 * ({@code io.nvmf4j.initiator.rdma}: per-request slots, polling, timeouts) depends on the API package, never the
 * reverse, is found through {@link java.util.ServiceLoader}, and is internal and not exported; so is the NVMe/TCP one
 * ({@code io.nvmf4j.initiator.tcp}).
 */
module io.nvmf4j.initiator {
    requires transitive io.nvmf4j.protocol;
    requires transitive io.nvmf4j.verbs;

    exports io.nvmf4j.initiator;

    uses io.nvmf4j.initiator.HostTransport;
    provides io.nvmf4j.initiator.HostTransport with io.nvmf4j.initiator.rdma.RdmaTransport,
            io.nvmf4j.initiator.tcp.TcpTransport;
}
