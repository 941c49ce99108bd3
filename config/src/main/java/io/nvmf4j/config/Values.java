package io.nvmf4j.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text-to-value conversions with nvmetcli's leniency: nvmetcli writes every configfs attribute as a string
 * ({@code "1"}, {@code "4420"}) and the kernel parses it with {@code kstrtoint(.., 0, ..)} (decimal, {@code 0x}
 * hex) or {@code kstrtobool()}, so both JSON numbers and such strings are accepted.
 */
final class Values {

    private static final Pattern SIZE = Pattern.compile("([0-9]+)\\s*([kKmMgGtT]?)(i?[bB])?");

    private Values() {
    }

    /** Integer as kstrto*(base 0) reads it (decimal or 0x hex, optional sign), or null. */
    static Long parseInteger(String text) {
        String t = text.strip();
        boolean negative = t.startsWith("-");
        if (negative || t.startsWith("+")) {
            t = t.substring(1);
        }
        try {
            long v;
            if (t.startsWith("0x") || t.startsWith("0X")) {
                v = Long.parseLong(t.substring(2), 16);
            } else if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
                v = Long.parseLong(t);
            } else {
                return null;
            }
            return negative ? -v : v;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Boolean as Linux kstrtobool() reads it: 1/y/t/on true, 0/n/f/off false (first letter decides); or null. */
    static Boolean parseBoolean(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("on")) {
            return true;
        }
        if (t.equals("off")) {
            return false;
        }
        if (t.isEmpty()) {
            return null;
        }
        return switch (t.charAt(0)) {
            case '1', 'y', 't' -> true;
            case '0', 'n', 'f' -> false;
            default -> null;
        };
    }

    /** A size such as {@code 1G}, {@code 512M}, {@code 64KiB} or {@code 1048576} (binary units), or null. */
    static Long parseSize(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            return null;
        }
        int shift = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                return null;
            }
            return n << shift;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The shortest exact form of a size for writing back ({@code 1G}, {@code 3M}, {@code 4097}). */
    static String formatSize(long bytes) {
        String[] units = {"T", "G", "M", "K"};
        int[] shifts = {40, 30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << shifts[i];
            if (bytes >= unit && bytes % unit == 0) {
                return (bytes >> shifts[i]) + units[i];
            }
        }
        return Long.toString(bytes);
    }
}
