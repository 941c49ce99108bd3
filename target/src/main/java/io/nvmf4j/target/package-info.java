/**
 * The NVMe-oF target (controller side), laid out like Linux drivers/nvme/target: subsystems, namespaces and backends, controllers, admin/I-O/fabrics command handlers, discovery, the RDMA transport binding.
 */
package io.nvmf4j.target;
