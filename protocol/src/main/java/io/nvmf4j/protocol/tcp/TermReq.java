package io.nvmf4j.protocol.tcp;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * H2CTermReq and C2HTermReq, the PDUs that end a connection after a fatal transport error (NVMe/TCP 1.0a, 3.6.2,
 * "H2CTermReq PDU"/"C2HTermReq PDU"; Linux {@code struct nvme_tcp_term_pdu}, SPDK
 * {@code struct spdk_nvme_tcp_term_req_hdr}): FES at 8, FEI at 10, bytes 14..23 reserved, then up to 128 bytes
 * of the PDU header in error (PLEN 24..152), never digests. The sender closes the connection after it; the
 * receiver closes without answering.
 */
public record TermReq(boolean fromHost, FatalErrorStatus status, long information, byte[] errorData) {

    public static final int HEADER_LENGTH = 24;
    public static final int OFFSET_FES = 8;
    public static final int OFFSET_FEI = 10;
    /** The most header bytes of the PDU in error it carries (Linux {@code NVME_TCP_MAX_C2HTERM_PLEN} 152 - 24). */
    public static final int MAX_ERROR_DATA = 128;

    public TermReq {
        Wire.checkUnsigned("FEI", information, 32);
        errorData = errorData == null ? new byte[0] : errorData.clone();
        if (errorData.length > MAX_ERROR_DATA) {
            throw new IllegalArgumentException("TermReq error data of " + errorData.length + " bytes, at most "
                    + MAX_ERROR_DATA);
        }
    }

    /** The TermReq for {@code cause}, quoting the first bytes of {@code badPdu}'s header (may be empty). */
    public static TermReq of(boolean fromHost, TermCause cause, MemorySegment badPdu) {
        int n = (int) Math.min(badPdu.byteSize(), MAX_ERROR_DATA);
        return new TermReq(fromHost, cause.status(), cause.information(),
                badPdu.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
    }

    @Override
    public byte[] errorData() {
        return errorData.clone();
    }

    /** PLEN: the header and the quoted bytes. */
    public int length() {
        return HEADER_LENGTH + errorData.length;
    }

    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, length(), "TermReq PDU");
        d.fill((byte) 0);
        PduHeader.write(d, fromHost ? PduType.H2C_TERM_REQ : PduType.C2H_TERM_REQ, 0, 0, length());
        Wire.u16(d, OFFSET_FES, status.code());
        Wire.u32(d, OFFSET_FEI, information);
        MemorySegment.copy(MemorySegment.ofArray(errorData), 0, d, HEADER_LENGTH, errorData.length);
    }

    /** Reads a TermReq whose common header {@link PduHeader#check} accepted; the whole PDU (PLEN bytes). */
    public static TermReq decode(MemorySegment pdu) {
        Wire.require(pdu, PduHeader.LENGTH, "TermReq common header");
        PduType type = PduType.of(PduHeader.type(pdu));
        if (type != PduType.H2C_TERM_REQ && type != PduType.C2H_TERM_REQ) {
            throw new MalformedStructureException("PDU type " + PduHeader.type(pdu) + " is not a TermReq",
                    PduHeader.OFFSET_TYPE);
        }
        long plen = PduHeader.length(pdu);
        if (plen < HEADER_LENGTH || plen > HEADER_LENGTH + MAX_ERROR_DATA || pdu.byteSize() < plen) {
            throw new MalformedStructureException("TermReq PLEN " + plen + " (24.." + (HEADER_LENGTH
                    + MAX_ERROR_DATA) + ", " + pdu.byteSize() + " bytes here)", PduHeader.OFFSET_PLEN);
        }
        FatalErrorStatus fes = FatalErrorStatus.of(Wire.u16(pdu, OFFSET_FES));
        if (fes == null) {
            throw new MalformedStructureException("TermReq FES " + Wire.u16(pdu, OFFSET_FES) + " is reserved",
                    OFFSET_FES);
        }
        byte[] data = pdu.asSlice(HEADER_LENGTH, plen - HEADER_LENGTH).toArray(ValueLayout.JAVA_BYTE);
        return new TermReq(type == PduType.H2C_TERM_REQ, fes, Wire.u32(pdu, OFFSET_FEI), data);
    }
}
