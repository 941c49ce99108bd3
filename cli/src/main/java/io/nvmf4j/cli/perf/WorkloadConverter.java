package io.nvmf4j.cli.perf;

import picocli.CommandLine.ITypeConverter;

/** picocli converter for {@code -w}. */
public final class WorkloadConverter implements ITypeConverter<Workload> {
    @Override
    public Workload convert(String value) {
        return Workload.parse(value);
    }
}
