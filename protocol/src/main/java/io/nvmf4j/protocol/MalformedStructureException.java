package io.nvmf4j.protocol;

import java.util.OptionalInt;

/**
 * A wire structure could not be decoded: too short, a reserved bit set, a value the spec forbids. The message
 * names the structure, the field and the offending value. Decoders throw this instead of letting an
 * {@link IndexOutOfBoundsException} escape; the target turns it into an NVMe status, never into a crash.
 *
 * <p>When the fault lies in one field, {@link #fieldOffset()} gives that field's byte offset within the decoded
 * structure, so a target can report it the way Linux nvmet does with {@code req->error_loc} (or, for the Connect
 * data, as the IPO of a Connect Invalid Parameters response).
 */
public class MalformedStructureException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final int fieldOffset;

    public MalformedStructureException(String message) {
        super(message);
        this.fieldOffset = -1;
    }

    /** A fault in the field that starts at byte {@code fieldOffset} of the structure being decoded. */
    public MalformedStructureException(String message, int fieldOffset) {
        super(message);
        if (fieldOffset < 0) {
            throw new IllegalArgumentException("field offset must not be negative: " + fieldOffset);
        }
        this.fieldOffset = fieldOffset;
    }

    /** Byte offset of the offending field within its structure, when the fault lies in one field. */
    public OptionalInt fieldOffset() {
        return fieldOffset < 0 ? OptionalInt.empty() : OptionalInt.of(fieldOffset);
    }
}
