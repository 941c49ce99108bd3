/**
 * The NVMe-oF host library: connect, discovery, namespace I/O, keep-alive and reconnect ({@code io.nvmf4j.initiator},
 * the API). The RDMA host queue ({@code io.nvmf4j.initiator.rdma}: per-command requests, polling, timeouts) is
 * internal and not exported.
 */
module io.nvmf4j.initiator {
    requires transitive io.nvmf4j.protocol;
    requires transitive io.nvmf4j.verbs;

    exports io.nvmf4j.initiator;
}
