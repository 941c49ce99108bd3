/**
 * NVMe admin commands (NVMe Base 2.0, 5 "Admin Command Set") as typed views over a
 * {@link io.nvmf4j.protocol.SubmissionQueueEntry}, and the data structures they return: Identify Controller,
 * Identify Namespace, the active namespace ID list and the namespace identification descriptor list.
 * Linux: {@code include/linux/nvme.h}; SPDK: {@code include/spdk/nvme_spec.h}.
 */
package io.nvmf4j.protocol.admin;
