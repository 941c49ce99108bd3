/**
 * The RDMA verbs API ({@code io.nvmf4j.verbs}: device, PD, MR, memory window, CQ, QP, connection manager) and its two
 * providers, found through {@link java.util.ServiceLoader}: softiwarp (pure-Java iWARP over TCP) and ibverbs (FFM over
 * libibverbs/librdmacm). Only the API is exported; the providers are reached through {@code RdmaProviders}.
 * Also {@code io.nvmf4j.uring}: a raw Linux io_uring ring (FFM over the system calls) for the target's file and
 * block backends, here because it is the module that already owns native bindings and needs nothing NVMe.
 * JDK only, independent of the NVMe modules.
 */
module io.nvmf4j.verbs {
    exports io.nvmf4j.verbs;
    exports io.nvmf4j.uring;

    uses io.nvmf4j.verbs.RdmaProvider;
    provides io.nvmf4j.verbs.RdmaProvider with
            io.nvmf4j.verbs.softiwarp.SoftiwarpProvider,
            io.nvmf4j.verbs.ibverbs.IbverbsProvider;
}
