/**
 * What the RDMA and NVMe/TCP transports' poll groups share: {@link io.nvmf4j.target.poll.SpinBudget}, when a poll
 * loop stops busy-polling and blocks. Not exported (module-info): its public classes are for
 * {@code io.nvmf4j.target.rdma} and {@code io.nvmf4j.target.tcp}, not for an embedder.
 */
package io.nvmf4j.target.poll;
