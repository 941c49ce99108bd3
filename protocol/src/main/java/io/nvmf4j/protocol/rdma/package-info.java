/**
 * The NVMe-oF RDMA transport binding's own wire structures (NVMe-oF 1.1 RDMA transport binding; NVMe RDMA
 * Transport Specification 1.0): the RDMA_CM private data exchanged when a queue pair is connected (request,
 * accept, reject) and the RDMA transport specific address subtype (TSAS) of discovery log entries.
 * Linux: {@code include/linux/nvme-rdma.h} and {@code struct nvmf_disc_rsp_page_entry}; SPDK:
 * {@code include/spdk/nvmf_spec.h}.
 */
package io.nvmf4j.protocol.rdma;
