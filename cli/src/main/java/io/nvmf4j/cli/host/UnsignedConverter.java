package io.nvmf4j.cli.host;

import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/** A 32-bit unsigned number in decimal or 0x hex, as nvme-cli's OPT_UINT reads it (strtoul base 0). */
public final class UnsignedConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        try {
            long v = value.startsWith("0x") || value.startsWith("0X") ? Long.parseLong(value.substring(2), 16)
                    : Long.parseLong(value);
            if (v < 0 || v > 0xFFFF_FFFFL) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a 32-bit unsigned number");
        }
    }
}
