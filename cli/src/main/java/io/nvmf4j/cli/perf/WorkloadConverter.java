package io.nvmf4j.cli.perf;

import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/** picocli converter for {@code -w}. */
public final class WorkloadConverter implements ITypeConverter<Workload> {
    @Override
    public Workload convert(String value) {
        try {
            return Workload.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
