package io.nvmf4j.protocol.sgl;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.StatusCode;

/**
 * An SGL descriptor that the decoder refuses, with the reason as a value so that a target can answer with the
 * status the spec (and Linux {@code nvmet_rdma_map_sgl()}) gives for it, and the offending byte within the
 * 16-byte descriptor as {@link #fieldOffset()}.
 */
public final class SglDescriptorException extends MalformedStructureException {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the descriptor. */
    public enum Problem {
        /** Byte 15 bits 7:4 hold a reserved or vendor-specific descriptor type. */
        TYPE(StatusCode.SGL_INVALID_TYPE),
        /**
         * Byte 15 bits 3:0 hold a subtype the type does not define. NVMe 1.2.1 named this SGL Descriptor Subtype
         * Invalid (17h); Linux nvmet answers Invalid Field in Command, which is what we suggest too.
         */
        SUBTYPE(StatusCode.INVALID_FIELD),
        /** The length of a segment descriptor is not a multiple of 16 or is zero. */
        SEGMENT_LENGTH(StatusCode.SGL_INVALID_LAST);

        private final StatusCode status;

        Problem(StatusCode status) {
            this.status = status;
        }

        /** The status a controller returns for this problem. */
        public StatusCode status() {
            return status;
        }
    }

    private final Problem problem;

    public SglDescriptorException(Problem problem, String message, int fieldOffset) {
        super(message, fieldOffset);
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}
