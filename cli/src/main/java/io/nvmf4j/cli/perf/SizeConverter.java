package io.nvmf4j.cli.perf;

import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/** "4096", "4k", "128K", "1m", "1g": binary multiples, as fio and SPDK perf read sizes. */
public final class SizeConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (v.endsWith("ib")) {
            v = v.substring(0, v.length() - 2);
        } else if (v.endsWith("b") && v.length() > 1 && !Character.isDigit(v.charAt(v.length() - 2))) {
            v = v.substring(0, v.length() - 1);
        }
        long unit = 1;
        char last = v.isEmpty() ? ' ' : v.charAt(v.length() - 1);
        switch (last) {
            case 'k' -> unit = 1L << 10;
            case 'm' -> unit = 1L << 20;
            case 'g' -> unit = 1L << 30;
            case 't' -> unit = 1L << 40;
            default -> unit = 1;
        }
        String digits = unit == 1 ? v : v.substring(0, v.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n < 0) {
                throw new CommandLine.TypeConversionException("negative size '" + value + "'");
            }
            return Math.multiplyExact(n, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a size (e.g. 4096, 4k, 128k, 1m)");
        }
    }
}
