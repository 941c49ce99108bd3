package io.nvmf4j.protocol.rdma;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * The RDMA Transport Specific Address Subtype, the 256-byte TSAS field of a discovery log page entry when TRTYPE
 * is RDMA (NVMe-oF 1.1 "Discovery Log Page", entry bytes 1023:768; Linux
 * {@code struct nvmf_disc_rsp_page_entry.tsas.rdma}, SPDK
 * {@code struct spdk_nvmf_rdma_transport_specific_address_subtype}):
 *
 * <pre>
 *  0      RDMA_QPTYPE  1 reliable connected, 2 reliable datagram
 *  1      RDMA_PRTYPE  1 not specified, 2 InfiniBand, 3 RoCE, 4 RoCE v2, 5 iWARP
 *  2      RDMA_CMS     1 RDMA_CM
 *  3..7   reserved
 *  8..9   RDMA_PKEY    partition key (AF_IB)
 *  10..255 reserved
 * </pre>
 *
 * Values are kept raw so that an entry from another target with a value we do not know still decodes; the typed
 * accessors name the known ones. Linux nvmet's default port is connected / not specified / RDMA_CM, pkey 0.
 */
public record RdmaTsas(int qptype, int prtype, int cms, int pkey) {

    public static final int SIZE = 256;
    public static final int OFFSET_QPTYPE = 0;
    public static final int OFFSET_PRTYPE = 1;
    public static final int OFFSET_CMS = 2;
    public static final int OFFSET_PKEY = 8;

    public RdmaTsas {
        Wire.checkUnsigned("RDMA_QPTYPE", qptype, 8);
        Wire.checkUnsigned("RDMA_PRTYPE", prtype, 8);
        Wire.checkUnsigned("RDMA_CMS", cms, 8);
        Wire.checkUnsigned("RDMA_PKEY", pkey, 16);
    }

    public static RdmaTsas of(RdmaQpType qptype, RdmaProviderType providerType, RdmaCms cms, int pkey) {
        return new RdmaTsas(qptype.value(), providerType.value(), cms.value(), pkey);
    }

    /** What Linux nvmet advertises for an RDMA port unless configured otherwise. */
    public static RdmaTsas linuxDefault() {
        return of(RdmaQpType.RELIABLE_CONNECTED, RdmaProviderType.NOT_SPECIFIED, RdmaCms.RDMA_CM, 0);
    }

    public Optional<RdmaQpType> qpType() {
        return RdmaQpType.fromValue(qptype);
    }

    public Optional<RdmaProviderType> providerType() {
        return RdmaProviderType.fromValue(prtype);
    }

    public Optional<RdmaCms> connectionManagement() {
        return RdmaCms.fromValue(cms);
    }

    /** Writes all 256 bytes (reserved ones zero) into the start of {@code destination}. */
    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, SIZE, "RDMA TSAS");
        d.fill((byte) 0);
        Wire.u8(d, OFFSET_QPTYPE, qptype);
        Wire.u8(d, OFFSET_PRTYPE, prtype);
        Wire.u8(d, OFFSET_CMS, cms);
        Wire.u16(d, OFFSET_PKEY, pkey);
    }

    public static RdmaTsas decode(MemorySegment tsas) {
        MemorySegment s = Wire.require(tsas, SIZE, "RDMA TSAS");
        return new RdmaTsas(Wire.u8(s, OFFSET_QPTYPE), Wire.u8(s, OFFSET_PRTYPE), Wire.u8(s, OFFSET_CMS),
                Wire.u16(s, OFFSET_PKEY));
    }

    @Override
    public String toString() {
        return String.format("RdmaTsas[qptype=%s prtype=%s cms=%s pkey=%04xh]",
                qpType().map(Enum::name).orElse(Integer.toString(qptype)),
                providerType().map(Enum::name).orElse(Integer.toString(prtype)),
                connectionManagement().map(Enum::name).orElse(Integer.toString(cms)), pkey);
    }
}
