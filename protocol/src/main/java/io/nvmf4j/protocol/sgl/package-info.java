/**
 * SGL descriptors (NVMe Base 2.0, 4.3.2 "Scatter Gather List (SGL)"): the 16-byte entries of SGL1 in an NVMe-oF
 * command capsule and of SGL segments. Over RDMA the host describes its buffers with keyed data block descriptors
 * (type 4h) and small writes with an in-capsule data block descriptor (type 0h, subtype 1h "offset").
 * Linux: {@code struct nvme_sgl_desc} and {@code struct nvme_keyed_sgl_desc}; SPDK: {@code struct
 * spdk_nvme_sgl_descriptor}.
 */
package io.nvmf4j.protocol.sgl;
