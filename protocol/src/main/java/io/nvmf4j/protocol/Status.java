package io.nvmf4j.protocol;

import java.util.Optional;

/**
 * The 15-bit status field of a completion queue entry (NVMe Base 2.0, "Status Field Definition"):
 * SC bits 7:0, SCT bits 10:8, CRD bits 12:11, More bit 13, DNR bit 14. In the 16-bit word at CQE offset 14 the
 * phase tag takes bit 0 and this field sits in bits 15:1 (SPDK {@code struct spdk_nvme_status}). Linux keeps the
 * field in this unshifted form: {@code NVME_SC_LBA_RANGE | NVME_STATUS_DNR} is {@code 0x4080}, which is the
 * word {@code 0x8100} on the wire.
 *
 * @param sct  status code type, 0..7 (see {@link StatusCodeType})
 * @param sc   status code, 0..255
 * @param dnr  Do Not Retry
 * @param more More: extra information is in the Error Information log page
 * @param crd  Command Retry Delay, 0..3 (index into CRDT1-3 of Identify Controller; 0 means no delay)
 */
public record Status(int sct, int sc, boolean dnr, boolean more, int crd) {

    public static final int SC_SHIFT = 0;
    public static final int SCT_SHIFT = 8;
    public static final int CRD_SHIFT = 11;
    public static final int MORE_BIT = 1 << 13;
    public static final int DNR_BIT = 1 << 14;
    /** Mask of the 15 defined bits of the status field. */
    public static final int FIELD_MASK = 0x7FFF;

    /** Successful Completion, all flags clear. */
    public static final Status SUCCESS = new Status(0, 0, false, false, 0);

    public Status {
        Wire.checkUnsigned("SCT", sct, 3);
        Wire.checkUnsigned("SC", sc, 8);
        Wire.checkUnsigned("CRD", crd, 2);
    }

    /** A status with the given type and code, no flags. */
    public static Status of(StatusCodeType type, int sc) {
        return new Status(type.value(), sc, false, false, 0);
    }

    /** Decodes the 15-bit status field (bits above 14 must be clear: pass the word shifted right by one). */
    public static Status fromField(int field) {
        if ((field & ~FIELD_MASK) != 0) {
            throw new IllegalArgumentException(String.format(
                    "status field %04xh has bits above bit 14; did you pass the 16-bit CQE word (use fromStatusWord)?",
                    field));
        }
        return new Status((field >>> SCT_SHIFT) & 0x7, field & 0xFF, (field & DNR_BIT) != 0,
                (field & MORE_BIT) != 0, (field >>> CRD_SHIFT) & 0x3);
    }

    /** Decodes the 16-bit word at CQE offset 14, ignoring the phase tag in bit 0. */
    public static Status fromStatusWord(int word) {
        return fromField((word & 0xFFFF) >>> 1);
    }

    /** The 15-bit status field, as Linux writes {@code status} before shifting in the phase tag. */
    public int toField() {
        return sc << SC_SHIFT | sct << SCT_SHIFT | crd << CRD_SHIFT | (more ? MORE_BIT : 0) | (dnr ? DNR_BIT : 0);
    }

    /** The 16-bit word at CQE offset 14 with the given phase tag. */
    public int toStatusWord(boolean phase) {
        return toField() << 1 | (phase ? 1 : 0);
    }

    /** SCT and SC as one 11-bit value ({@code sct << 8 | sc}), the form of Linux's {@code NVME_SC_*} constants. */
    public int code() {
        return sct << SCT_SHIFT | sc;
    }

    public boolean isSuccess() {
        return sct == 0 && sc == 0;
    }

    public Optional<StatusCodeType> type() {
        return StatusCodeType.fromValue(sct);
    }

    public Status withDnr() {
        return new Status(sct, sc, true, more, crd);
    }

    public Status withMore() {
        return new Status(sct, sc, dnr, true, crd);
    }

    public Status withCrd(int retryDelayIndex) {
        return new Status(sct, sc, dnr, more, retryDelayIndex);
    }

    /**
     * True when this status has the given code's SCT and SC, whatever its flags.
     */
    public boolean is(StatusCode code) {
        return sct == code.type().value() && sc == code.sc();
    }

    /**
     * Readable form for logs, naming the code as it would be in a completion for a non-fabrics command; use
     * {@link StatusCode#describe(Status, boolean)} for fabrics commands, whose command-specific codes overlap.
     */
    @Override
    public String toString() {
        return StatusCode.describe(this, false);
    }
}
