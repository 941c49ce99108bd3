/**
 * The NVMe/TCP transport binding's wire structures (NVM Express TCP Transport Specification 1.0a, section 3.6:
 * the PDUs; TP 8000 as folded into NVMe-oF): the common header every PDU starts with, connection initialization
 * (ICReq, ICResp), the capsules, the data PDUs (H2CData, C2HData, R2T), the connection-ending TermReq PDUs, and
 * the digests. Linux: {@code include/linux/nvme-tcp.h}; SPDK: {@code include/spdk/nvmf_spec.h} (its
 * {@code spdk_nvme_tcp_*} structures).
 *
 * <p>The per-I/O PDUs are read and written through static accessors over a {@code MemorySegment} (no object per
 * PDU); the once-per-connection ones are records with {@code encode}/{@code decode}.
 */
package io.nvmf4j.protocol.tcp;
