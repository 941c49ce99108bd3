package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The TCP Transport Specific Address Subtype, the 256-byte TSAS field of a discovery log page entry when TRTYPE
 * is TCP (NVMe/TCP Transport Specification, "Transport Specific Address Subtype"; entry bytes 1023:768; Linux
 * {@code struct nvmf_disc_rsp_page_entry.tsas.tcp}, {@code struct nvmf_tcp_tsas}):
 *
 * <pre>
 *  0      SECTYPE   0 no security, 1 TLS 1.2, 2 TLS 1.3 (Linux NVMF_TCP_SECTYPE_NONE, _TLS12, _TLS13)
 *  1..255 reserved
 * </pre>
 *
 * The value is kept raw, as {@link io.nvmf4j.protocol.rdma.RdmaTsas} keeps its own, so that an entry from another
 * target with a security type we do not know still decodes. Linux nvmet writes {@link #SECTYPE_NONE} for a port
 * without TLS.
 */
public record TcpTsas(int sectype) {

    public static final int SIZE = 256;
    public static final int OFFSET_SECTYPE = 0;
    /** Linux {@code NVMF_TCP_SECTYPE_NONE}: no security. */
    public static final int SECTYPE_NONE = 0;
    /** Linux {@code NVMF_TCP_SECTYPE_TLS12}: TLS 1.2. */
    public static final int SECTYPE_TLS12 = 1;
    /** Linux {@code NVMF_TCP_SECTYPE_TLS13}: TLS 1.3. */
    public static final int SECTYPE_TLS13 = 2;

    public TcpTsas {
        Wire.checkUnsigned("SECTYPE", sectype, 8);
    }

    /** What Linux nvmet advertises for a TCP port without TLS. */
    public static TcpTsas none() {
        return new TcpTsas(SECTYPE_NONE);
    }

    /** Writes all 256 bytes (reserved ones zero) into the start of {@code destination}. */
    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, SIZE, "TCP TSAS");
        d.fill((byte) 0);
        Wire.u8(d, OFFSET_SECTYPE, sectype);
    }

    public static TcpTsas decode(MemorySegment tsas) {
        MemorySegment s = Wire.require(tsas, SIZE, "TCP TSAS");
        return new TcpTsas(Wire.u8(s, OFFSET_SECTYPE));
    }
}
