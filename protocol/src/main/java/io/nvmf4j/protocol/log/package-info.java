/**
 * Log pages returned by Get Log Page (NVMe Base 2.0, 5.16.1): Error Information (01h), SMART / Health Information
 * (02h), Changed Namespace List (04h) and the NVMe-oF Discovery log (70h; NVMe-oF 1.1, 5.3) with its 1024-byte
 * header and 1024-byte entries. Linux: {@code include/linux/nvme.h}; SPDK: {@code nvme_spec.h}, {@code nvmf_spec.h}.
 */
package io.nvmf4j.protocol.log;
