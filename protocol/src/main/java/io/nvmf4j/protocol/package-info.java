/**
 * NVMe and NVMe-oF wire formats: submission/completion queue entries, status codes, SGL descriptors, fabrics and admin commands, identify and log page data, RDMA CM private data. Encode/decode on little-endian MemorySegments; no I/O, no threads.
 */
package io.nvmf4j.protocol;
