/**
 * The NVMe-oF target: subsystems, namespaces, controllers and their command handlers ({@code io.nvmf4j.target}),
 * namespace backends ({@code .backend}), Micrometer metrics ({@code .metrics}), the RDMA transport
 * ({@code .rdma}: an embedder starts {@code RdmaTransport} with {@code RdmaTransportOptions}; the poll groups,
 * queues and request state machine in that package are package-private) and the NVMe/TCP transport
 * ({@code .tcp}: {@code TcpTransport} with {@code TcpTransportOptions}, the rest package-private as well); what the
 * two transports' poll groups share is in {@code .poll}, which is not exported.
 */
// micrometer-core has no module descriptor (an automatic module), and TargetMetrics takes its registry: the
// requirement is needed and transitive until Micrometer ships a module-info
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.nvmf4j.target {
    requires transitive io.nvmf4j.protocol;
    requires transitive io.nvmf4j.verbs;
    requires transitive io.nvmf4j.config;
    requires transitive micrometer.core;

    exports io.nvmf4j.target;
    exports io.nvmf4j.target.backend;
    exports io.nvmf4j.target.metrics;
    exports io.nvmf4j.target.rdma;
    exports io.nvmf4j.target.tcp;
}
