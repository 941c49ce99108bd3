package io.nvmf4j.cli.host;

import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/** A 64-bit unsigned number in decimal or 0x hex, as nvme-cli reads an LBA list (strtoull base 0). */
public final class Unsigned64Converter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        try {
            return value.startsWith("0x") || value.startsWith("0X") ? Long.parseUnsignedLong(value.substring(2), 16)
                    : Long.parseUnsignedLong(value);
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a 64-bit unsigned number");
        }
    }
}
