package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.Wire;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.admin.AsciiField;
import io.nvmf4j.protocol.rdma.RdmaTsas;
import io.nvmf4j.protocol.tcp.TcpTsas;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One 1024-byte Discovery Log Page Entry (NVMe-oF 1.1, 5.3, Figure 38; NVMe Base 2.0, 5.16.1.23): TRTYPE@0,
 * ADRFAM@1, SUBTYPE@2, TREQ@3, PORTID u16@4, CNTLID u16@6, ASQSZ u16@8, EFLAGS u16@10, TRSVCID@32 (32 bytes),
 * SUBNQN@256 (256 bytes), TRADDR@512 (256 bytes), TSAS@768 (256 bytes).
 *
 * <p>Note the order: SUBNQN comes <em>before</em> TRADDR. Linux {@code struct nvmf_disc_rsp_page_entry}
 * (resv64[192], subnqn, traddr, tsas) and SPDK {@code struct spdk_nvmf_discovery_log_page_entry} (checked with
 * offsetof: subnqn 256, traddr 512, tsas 768) agree.
 *
 * <p>Padding of TRSVCID and TRADDR differs between implementations: Linux nvmet copies NUL-padded configfs strings
 * ({@code nvmet_format_discovery_entry()}: memcpy of {@code port->disc_addr.trsvcid/traddr}), SPDK pads with spaces
 * ({@code spdk_strcpy_pad(.., ' ')} in {@code nvmf_rdma_discover()}). We write like Linux (NUL padding) and read
 * both, as nvme-cli does (text ends at the first NUL, trailing spaces dropped). SUBNQN is NUL padded everywhere.
 *
 * <p>TSAS for RDMA is {@link RdmaTsas} (RDMA_QPTYPE@768, RDMA_PRTYPE@769, RDMA_CMS@770, RDMA_PKEY u16@776); for TCP
 * it is {@link TcpTsas} (SECTYPE@768).
 */
public final class DiscoveryLogEntry {

    public static final int SIZE = 1024;

    public static final int OFFSET_TRTYPE = 0;
    public static final int OFFSET_ADRFAM = 1;
    public static final int OFFSET_SUBTYPE = 2;
    public static final int OFFSET_TREQ = 3;
    public static final int OFFSET_PORTID = 4;
    public static final int OFFSET_CNTLID = 6;
    public static final int OFFSET_ASQSZ = 8;
    public static final int OFFSET_EFLAGS = 10;
    public static final int OFFSET_TRSVCID = 32;
    public static final int TRSVCID_LENGTH = 32;
    public static final int OFFSET_SUBNQN = 256;
    public static final int SUBNQN_LENGTH = 256;
    public static final int OFFSET_TRADDR = 512;
    public static final int TRADDR_LENGTH = 256;
    public static final int OFFSET_TSAS = 768;
    public static final int TSAS_LENGTH = 256;

    /** Transport types (NVMe-oF 1.1, Figure 38 / Linux {@code NVMF_TRTYPE_*}). */
    public static final int TRTYPE_RDMA = 1;
    public static final int TRTYPE_FC = 2;
    public static final int TRTYPE_TCP = 3;
    public static final int TRTYPE_LOOP = 254;
    /** Address families (Linux {@code NVMF_ADDR_FAMILY_*}). */
    public static final int ADRFAM_IPV4 = 1;
    public static final int ADRFAM_IPV6 = 2;
    public static final int ADRFAM_IB = 3;
    public static final int ADRFAM_FC = 4;
    public static final int ADRFAM_LOOP = 254;
    /** Subsystem types: a referral to another discovery service, an NVM subsystem, the current discovery subsystem. */
    public static final int SUBTYPE_REFERRAL = 1;
    public static final int SUBTYPE_NVME = 2;
    public static final int SUBTYPE_CURRENT_DISCOVERY = 3;
    /** TREQ bits 1:0 secure channel: 0 not specified, 1 required, 2 not required; bit 2: SQ flow control disable OK. */
    public static final int TREQ_NOT_SPECIFIED = 0;
    public static final int TREQ_REQUIRED = 1;
    public static final int TREQ_NOT_REQUIRED = 2;
    public static final int TREQ_DISABLE_SQFLOW = 1 << 2;
    /** CNTLID FFFFh: dynamic controller model (Linux {@code NVME_CNTLID_DYNAMIC}). */
    public static final int CNTLID_DYNAMIC = 0xFFFF;

    private static final ValueLayout.OfShort U16 = Wire.LE_U16;

    private final MemorySegment segment;

    private DiscoveryLogEntry(MemorySegment segment) {
        this.segment = segment;
    }

    public static DiscoveryLogEntry wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException(
                    "discovery log entry needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        return new DiscoveryLogEntry(segment.asSlice(0, SIZE));
    }

    public static DiscoveryLogEntry allocate() {
        return new DiscoveryLogEntry(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    public int trtype() { return u8(OFFSET_TRTYPE); }
    public DiscoveryLogEntry trtype(int v) { return u8(OFFSET_TRTYPE, v); }
    public int adrfam() { return u8(OFFSET_ADRFAM); }
    public DiscoveryLogEntry adrfam(int v) { return u8(OFFSET_ADRFAM, v); }
    public int subtype() { return u8(OFFSET_SUBTYPE); }
    public DiscoveryLogEntry subtype(int v) { return u8(OFFSET_SUBTYPE, v); }
    public int treq() { return u8(OFFSET_TREQ); }
    public DiscoveryLogEntry treq(int v) { return u8(OFFSET_TREQ, v); }
    public int portId() { return u16(OFFSET_PORTID); }
    public DiscoveryLogEntry portId(int v) { return u16(OFFSET_PORTID, v); }
    public int cntlid() { return u16(OFFSET_CNTLID); }
    public DiscoveryLogEntry cntlid(int v) { return u16(OFFSET_CNTLID, v); }
    /** Admin Max SQ Size: the largest admin queue the host may request (Linux nvmet: NVME_AQ_DEPTH, 32). */
    public int asqsz() { return u16(OFFSET_ASQSZ); }
    public DiscoveryLogEntry asqsz(int v) { return u16(OFFSET_ASQSZ, v); }
    public int eflags() { return u16(OFFSET_EFLAGS); }
    public DiscoveryLogEntry eflags(int v) { return u16(OFFSET_EFLAGS, v); }

    /** Transport service identifier (the port, e.g. "4420"), NUL- or space-padded on the wire. */
    public String trsvcid() { return AsciiField.read(segment, OFFSET_TRSVCID, TRSVCID_LENGTH); }
    public DiscoveryLogEntry trsvcid(String v) {
        AsciiField.writeNulPadded(segment, OFFSET_TRSVCID, TRSVCID_LENGTH, "TRSVCID", v, false);
        return this;
    }

    /** Transport address (e.g. "192.168.1.10"), NUL- or space-padded on the wire. */
    public String traddr() { return AsciiField.read(segment, OFFSET_TRADDR, TRADDR_LENGTH); }
    public DiscoveryLogEntry traddr(String v) {
        AsciiField.writeNulPadded(segment, OFFSET_TRADDR, TRADDR_LENGTH, "TRADDR", v, false);
        return this;
    }

    /** The SUBNQN text as stored (may be empty in a malformed entry). */
    public String subnqn() { return AsciiField.read(segment, OFFSET_SUBNQN, SUBNQN_LENGTH); }

    /** The SUBNQN, validated by the NQN rules. */
    public Nqn subsystemNqn() { return Nqn.decode(segment.asSlice(OFFSET_SUBNQN, SUBNQN_LENGTH)); }

    public DiscoveryLogEntry subsystemNqn(Nqn nqn) {
        nqn.encode(segment.asSlice(OFFSET_SUBNQN, SUBNQN_LENGTH));
        return this;
    }

    /** The raw 256-byte Transport Specific Address Subtype, as a slice of this entry. */
    public MemorySegment tsas() {
        return segment.asSlice(OFFSET_TSAS, TSAS_LENGTH);
    }

    /** TSAS read as the RDMA subtype (meaningful when TRTYPE is RDMA). */
    public RdmaTsas rdmaTsas() {
        return RdmaTsas.decode(tsas());
    }

    /** Writes the RDMA TSAS (all 256 bytes, reserved ones zero), as nvmet configfs sets it for trtype rdma. */
    public DiscoveryLogEntry rdmaTsas(RdmaTsas tsas) {
        tsas.encode(tsas());
        return this;
    }

    /** TSAS read as the TCP subtype (meaningful when TRTYPE is TCP). */
    public TcpTsas tcpTsas() {
        return TcpTsas.decode(tsas());
    }

    /** Writes the TCP TSAS (all 256 bytes, reserved ones zero), as nvmet does for trtype tcp. */
    public DiscoveryLogEntry tcpTsas(TcpTsas tsas) {
        tsas.encode(tsas());
        return this;
    }

    public static String trtypeName(int trtype) {
        return switch (trtype) {
            case TRTYPE_RDMA -> "rdma";
            case TRTYPE_FC -> "fc";
            case TRTYPE_TCP -> "tcp";
            case TRTYPE_LOOP -> "loop";
            default -> "trtype-" + trtype;
        };
    }

    public static String adrfamName(int adrfam) {
        return switch (adrfam) {
            case ADRFAM_IPV4 -> "ipv4";
            case ADRFAM_IPV6 -> "ipv6";
            case ADRFAM_IB -> "ib";
            case ADRFAM_FC -> "fc";
            case ADRFAM_LOOP -> "loop";
            default -> "adrfam-" + adrfam;
        };
    }

    public static String subtypeName(int subtype) {
        return switch (subtype) {
            case SUBTYPE_REFERRAL -> "referral";
            case SUBTYPE_NVME -> "nvme subsystem";
            case SUBTYPE_CURRENT_DISCOVERY -> "current discovery subsystem";
            default -> "subtype-" + subtype;
        };
    }

    private int u8(long offset) {
        return Byte.toUnsignedInt(segment.get(JAVA_BYTE, offset));
    }

    private DiscoveryLogEntry u8(long offset, int v) {
        segment.set(JAVA_BYTE, offset, (byte) v);
        return this;
    }

    private int u16(long offset) {
        return Short.toUnsignedInt(segment.get(U16, offset));
    }

    private DiscoveryLogEntry u16(long offset, int v) {
        segment.set(U16, offset, (short) v);
        return this;
    }

    /** Formatted like {@code nvme discover} prints an entry. */
    @Override
    public String toString() {
        return String.format("DiscoveryLogEntry[trtype=%s adrfam=%s subtype=%s treq=%d portid=%d trsvcid=%s subnqn=%s "
                        + "traddr=%s cntlid=%d asqsz=%d]", trtypeName(trtype()), adrfamName(adrfam()),
                subtypeName(subtype()), treq(), portId(), trsvcid(), subnqn(), traddr(), cntlid(), asqsz())
                + (trtype() == TRTYPE_RDMA ? " " + rdmaTsas() : "");
    }
}
