package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The Initialize Connection Request PDU, the first PDU a host sends on a new connection, 128 bytes (NVMe/TCP 1.0a,
 * 3.6.2, "ICReq PDU"; Linux {@code struct nvme_tcp_icreq_pdu}, SPDK {@code struct spdk_nvme_tcp_ic_req}): PFV at 8
 * (PDU format version, 0 for 1.0), HPDA at 10 (the data alignment the host wants in PDUs it receives, 0's based
 * dwords, at most 31), DGST at 11 (bit 0 header digest, bit 1 data digest wanted), MAXR2T at 12 (R2Ts a command may
 * have outstanding, 0's based), bytes 16..127 reserved. Linux hosts send PFV 0, HPDA 0, MAXR2T 0 and the digests
 * {@code nvme connect -g/-G} asked for ({@code nvme_tcp_init_connection()}).
 */
public record IcReq(int pfv, int hpda, boolean headerDigest, boolean dataDigest, long maxR2t) {

    public static final int LENGTH = 128;
    public static final int OFFSET_PFV = 8;
    public static final int OFFSET_HPDA = 10;
    public static final int OFFSET_DGST = 11;
    public static final int OFFSET_MAXR2T = 12;
    /** PFV 0: NVMe/TCP 1.0 (Linux {@code NVME_TCP_PFV_1_0}). */
    public static final int PFV_1_0 = 0;
    /** DGST bit 0: header digest (Linux {@code NVME_TCP_HDR_DIGEST_ENABLE}). */
    public static final int DGST_HEADER = 1;
    /** DGST bit 1: data digest (Linux {@code NVME_TCP_DATA_DIGEST_ENABLE}). */
    public static final int DGST_DATA = 1 << 1;
    /** The largest HPDA/CPDA: 5 bits, (31 + 1) * 4 = 128 bytes. */
    public static final int MAX_PDA = 31;

    public IcReq {
        Wire.checkUnsigned("PFV", pfv, 16);
        if (hpda < 0 || hpda > MAX_PDA) {
            throw new IllegalArgumentException("HPDA " + hpda + " outside 0.." + MAX_PDA);
        }
        Wire.checkUnsigned("MAXR2T", maxR2t, 32);
    }

    /** What a Linux host sends: PFV 1.0, HPDA 0, one R2T per command (MAXR2T 0). */
    public static IcReq of(boolean headerDigest, boolean dataDigest) {
        return new IcReq(PFV_1_0, 0, headerDigest, dataDigest, 0);
    }

    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, LENGTH, "ICReq PDU");
        d.fill((byte) 0);
        PduHeader.write(d, PduType.IC_REQ, 0, 0, LENGTH);
        Wire.u16(d, OFFSET_PFV, pfv);
        Wire.u8(d, OFFSET_HPDA, hpda);
        Wire.u8(d, OFFSET_DGST, (headerDigest ? DGST_HEADER : 0) | (dataDigest ? DGST_DATA : 0));
        Wire.u32(d, OFFSET_MAXR2T, maxR2t);
    }

    /**
     * Why a controller must refuse these bytes as the first PDU of a connection, or null: not an ICReq at all (a
     * PDU sequence error), a common header other than a 128-byte ICReq's, a PDU format version other than 1.0 or an
     * HPDA beyond 31 (unsupported parameters), reserved DGST bits set.
     */
    public static TermCause check(MemorySegment pdu) {
        if (pdu.byteSize() < PduHeader.LENGTH) {
            return TermCause.field(PduHeader.OFFSET_PLEN, "ICReq header truncated");
        }
        if (PduHeader.type(pdu) != PduType.IC_REQ.code()) {
            return new TermCause(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, "PDU type " + PduHeader.type(pdu)
                    + " before an ICReq");
        }
        TermCause header = fixedHeader(pdu, "ICReq");
        if (header != null) {
            return header;
        }
        if (Wire.u16(pdu, OFFSET_PFV) != PFV_1_0) {
            return new TermCause(FatalErrorStatus.UNSUPPORTED_PARAMETER, OFFSET_PFV, "ICReq PFV "
                    + Wire.u16(pdu, OFFSET_PFV) + ", only 0 (1.0) is known");
        }
        if (Wire.u8(pdu, OFFSET_HPDA) > MAX_PDA) {
            return new TermCause(FatalErrorStatus.UNSUPPORTED_PARAMETER, OFFSET_HPDA, "ICReq HPDA "
                    + Wire.u8(pdu, OFFSET_HPDA) + " beyond " + MAX_PDA);
        }
        if ((Wire.u8(pdu, OFFSET_DGST) & ~(DGST_HEADER | DGST_DATA)) != 0) {
            return TermCause.field(OFFSET_DGST, "ICReq DGST " + Wire.u8(pdu, OFFSET_DGST) + " has reserved bits");
        }
        return null;
    }

    /** Reads an ICReq; a PDU that {@link #check} refuses throws, naming the field at its offset. */
    public static IcReq decode(MemorySegment pdu) {
        TermCause refused = check(pdu);
        if (refused != null) {
            throw new MalformedStructureException(refused.reason(), (int) refused.information());
        }
        int dgst = Wire.u8(pdu, OFFSET_DGST);
        return new IcReq(Wire.u16(pdu, OFFSET_PFV), Wire.u8(pdu, OFFSET_HPDA), (dgst & DGST_HEADER) != 0,
                (dgst & DGST_DATA) != 0, Wire.u32(pdu, OFFSET_MAXR2T));
    }

    /** The common header of a 128-byte initialization PDU: HLEN and PLEN 128, PDO 0, no flags. */
    static TermCause fixedHeader(MemorySegment pdu, String name) {
        if (PduHeader.headerLength(pdu) != LENGTH) {
            return TermCause.field(PduHeader.OFFSET_HLEN, name + " HLEN " + PduHeader.headerLength(pdu));
        }
        if (PduHeader.length(pdu) != LENGTH) {
            return TermCause.field(PduHeader.OFFSET_PLEN, name + " PLEN " + PduHeader.length(pdu));
        }
        if (PduHeader.flags(pdu) != 0) {
            return TermCause.field(PduHeader.OFFSET_FLAGS, name + " FLAGS " + PduHeader.flags(pdu));
        }
        if (PduHeader.dataOffset(pdu) != 0) {
            return TermCause.field(PduHeader.OFFSET_PDO, name + " PDO " + PduHeader.dataOffset(pdu));
        }
        if (pdu.byteSize() < LENGTH) {
            return TermCause.field(PduHeader.OFFSET_PLEN, name + " truncated at " + pdu.byteSize() + " bytes");
        }
        return null;
    }
}
