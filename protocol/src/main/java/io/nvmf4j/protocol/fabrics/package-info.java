/**
 * NVMe over Fabrics commands (NVMe-oF 1.1 and NVMe Base 2.0, "Fabrics Command Set"):
 * Connect with its 1024-byte data, Property Get / Property Set with the controller properties they reach (CAP,
 * VS, CC, CSTS, NSSR), Disconnect, and the Connect response. All are opcode 7Fh; byte 4 of the SQE (FCTYPE)
 * selects the command. Linux: {@code struct nvmf_*_command} in {@code include/linux/nvme.h}; SPDK:
 * {@code include/spdk/nvmf_spec.h}.
 */
package io.nvmf4j.protocol.fabrics;
