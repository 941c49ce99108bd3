package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The Initialize Connection Response PDU, the controller's answer to an ICReq, 128 bytes (NVMe/TCP 1.0a, 3.6.2.3,
 * "ICResp PDU"; Linux {@code struct nvme_tcp_icresp_pdu}, SPDK {@code struct spdk_nvme_tcp_ic_resp}): PFV at 8, CPDA
 * at 10 (the data alignment the controller wants in PDUs the host sends), DGST at 11 (the digests both sides will
 * use), MAXH2CDATA at 12 (the most data bytes one H2CData PDU may carry: a multiple of 4, at least 4,096), bytes
 * 16..127 reserved. Linux nvmet answers CPDA 0, the digests the host asked for and MAXH2CDATA 4 MiB
 * ({@code nvmet_tcp_handle_icreq()}).
 */
public record IcResp(int pfv, int cpda, boolean headerDigest, boolean dataDigest, long maxH2cData) {

    public static final int OFFSET_PFV = 8;
    public static final int OFFSET_CPDA = 10;
    public static final int OFFSET_DGST = 11;
    public static final int OFFSET_MAXH2CDATA = 12;

    public IcResp {
        Wire.checkUnsigned("PFV", pfv, 16);
        if (cpda < 0 || cpda > IcReq.MAX_PDA) {
            throw new IllegalArgumentException("CPDA " + cpda + " outside 0.." + IcReq.MAX_PDA);
        }
        Wire.checkUnsigned("MAXH2CDATA", maxH2cData, 32);
    }

    /** The answer to {@code request}: its digests granted as asked (as nvmet does), CPDA 0, {@code maxH2cData}. */
    public static IcResp answering(IcReq request, int maxH2cData) {
        return new IcResp(IcReq.PFV_1_0, 0, request.headerDigest(), request.dataDigest(), maxH2cData);
    }

    /** The connection both PDUs describe, seen from either side. */
    public NegotiatedParameters negotiated(IcReq request) {
        return new NegotiatedParameters(headerDigest, dataDigest, request.hpda(), cpda, maxH2cData,
                request.maxR2t());
    }

    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, IcReq.LENGTH, "ICResp PDU");
        d.fill((byte) 0);
        PduHeader.write(d, PduType.IC_RESP, 0, 0, IcReq.LENGTH);
        Wire.u16(d, OFFSET_PFV, pfv);
        Wire.u8(d, OFFSET_CPDA, cpda);
        Wire.u8(d, OFFSET_DGST, (headerDigest ? IcReq.DGST_HEADER : 0) | (dataDigest ? IcReq.DGST_DATA : 0));
        Wire.u32(d, OFFSET_MAXH2CDATA, maxH2cData);
    }

    /**
     * Why a host must refuse these bytes as the answer to {@code sent}, or null: the checks of Linux
     * {@code nvme_tcp_init_connection()}: an ICResp's common header, PFV 1.0, digests as asked, CPDA within 31,
     * MAXH2CDATA a multiple of 4 of at least 4,096.
     */
    public static TermCause check(MemorySegment pdu, IcReq sent) {
        if (pdu.byteSize() < PduHeader.LENGTH) {
            return TermCause.field(PduHeader.OFFSET_PLEN, "ICResp header truncated");
        }
        if (PduHeader.type(pdu) != PduType.IC_RESP.code()) {
            return new TermCause(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, "PDU type " + PduHeader.type(pdu)
                    + " where the ICResp was due");
        }
        TermCause header = IcReq.fixedHeader(pdu, "ICResp");
        if (header != null) {
            return header;
        }
        if (Wire.u16(pdu, OFFSET_PFV) != IcReq.PFV_1_0) {
            return new TermCause(FatalErrorStatus.UNSUPPORTED_PARAMETER, OFFSET_PFV, "ICResp PFV "
                    + Wire.u16(pdu, OFFSET_PFV));
        }
        int cpda = Wire.u8(pdu, OFFSET_CPDA);
        if (cpda > IcReq.MAX_PDA) {
            return new TermCause(FatalErrorStatus.UNSUPPORTED_PARAMETER, OFFSET_CPDA, "ICResp CPDA " + cpda);
        }
        int dgst = Wire.u8(pdu, OFFSET_DGST);
        int asked = (sent.headerDigest() ? IcReq.DGST_HEADER : 0) | (sent.dataDigest() ? IcReq.DGST_DATA : 0);
        if (dgst != asked) {
            return new TermCause(FatalErrorStatus.UNSUPPORTED_PARAMETER, OFFSET_DGST, "ICResp DGST " + dgst
                    + " where " + asked + " was asked");
        }
        long max = Wire.u32(pdu, OFFSET_MAXH2CDATA);
        if (max < NegotiatedParameters.MIN_MAX_H2C_DATA || max % 4 != 0) {
            return new TermCause(FatalErrorStatus.UNSUPPORTED_PARAMETER, OFFSET_MAXH2CDATA, "ICResp MAXH2CDATA "
                    + max + " (a multiple of 4 of at least " + NegotiatedParameters.MIN_MAX_H2C_DATA + ")");
        }
        return null;
    }

    /** Reads an ICResp; one that {@link #check} refuses throws, naming the field at its offset. */
    public static IcResp decode(MemorySegment pdu, IcReq sent) {
        TermCause refused = check(pdu, sent);
        if (refused != null) {
            throw new MalformedStructureException(refused.reason(), (int) refused.information());
        }
        int dgst = Wire.u8(pdu, OFFSET_DGST);
        return new IcResp(Wire.u16(pdu, OFFSET_PFV), Wire.u8(pdu, OFFSET_CPDA), (dgst & IcReq.DGST_HEADER) != 0,
                (dgst & IcReq.DGST_DATA) != 0, Wire.u32(pdu, OFFSET_MAXH2CDATA));
    }
}
