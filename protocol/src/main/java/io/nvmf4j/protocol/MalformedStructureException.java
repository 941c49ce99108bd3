package io.nvmf4j.protocol;

/**
 * A wire structure could not be decoded: too short, a reserved bit set, a value the spec forbids. The message
 * names the structure, the field and the offending value. Decoders throw this instead of letting an
 * {@link IndexOutOfBoundsException} escape; the target turns it into an NVMe status, never into a crash.
 */
public class MalformedStructureException extends IllegalArgumentException {

    public MalformedStructureException(String message) {
        super(message);
    }
}
