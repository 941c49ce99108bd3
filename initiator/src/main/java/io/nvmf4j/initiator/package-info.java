/**
 * The NVMe-oF host library (initiator side), usable without the CLI.
 *
 * <p>Entry points: {@link io.nvmf4j.initiator.NvmeController#connect(ConnectOptions)} (admin + I/O queues over
 * RDMA, enabled and identified), {@link io.nvmf4j.initiator.Namespace} (read, write, flush, write zeroes,
 * deallocate; asynchronous and blocking), {@link io.nvmf4j.initiator.Discovery} (log page 70h),
 * {@link io.nvmf4j.initiator.HostIdentity} (host NQN / host ID as nvme-cli finds them). The transport binding
 * lives in {@code io.nvmf4j.initiator.rdma} and mirrors Linux {@code drivers/nvme/host/rdma.c}; it implements
 * {@link io.nvmf4j.initiator.HostTransport} and {@link io.nvmf4j.initiator.HostQueue}, depends on this package and
 * is found through {@link java.util.ServiceLoader}: this package never names it.
 */
package io.nvmf4j.initiator;
