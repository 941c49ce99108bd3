/**
 * The RDMA verbs API (provider, device, protection domain, memory region, completion queue, queue pair, connection manager) and its providers: softiwarp (pure-Java iWARP) and ibverbs (FFM over libibverbs/librdmacm).
 */
package io.nvmf4j.verbs;
