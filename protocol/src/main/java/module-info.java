/**
 * NVMe and NVMe-oF wire structures as views over {@code MemorySegment}s (NVMe Base 2.0, NVMe-oF 1.1, the NVMe/RDMA
 * and NVMe/TCP transport bindings). JDK only: every package is API, read by the target, the initiator and the config module.
 */
module io.nvmf4j.protocol {
    exports io.nvmf4j.protocol;
    exports io.nvmf4j.protocol.admin;
    exports io.nvmf4j.protocol.auth;
    exports io.nvmf4j.protocol.fabrics;
    exports io.nvmf4j.protocol.io;
    exports io.nvmf4j.protocol.log;
    exports io.nvmf4j.protocol.rdma;
    exports io.nvmf4j.protocol.sgl;
    exports io.nvmf4j.protocol.tcp;
}
