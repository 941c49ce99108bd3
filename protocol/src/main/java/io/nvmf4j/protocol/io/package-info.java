/**
 * NVM command set I/O commands (NVM Command Set 1.0, 3 "I/O Commands"; NVMe 1.4, 6): Read, Write, Flush, Write
 * Zeroes and Dataset Management with its 16-byte ranges, as typed views over a
 * {@link io.nvmf4j.protocol.SubmissionQueueEntry}. Linux: {@code struct nvme_rw_command}, {@code struct
 * nvme_write_zeroes_cmd}, {@code struct nvme_dsm_cmd}, {@code struct nvme_dsm_range}.
 */
package io.nvmf4j.protocol.io;
