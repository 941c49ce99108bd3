package io.nvmf4j.cli.host.nvmecli;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON text exactly as nvme-cli 2.x prints it: json-c's {@code json_object_to_json_string_ext()} with
 * {@code JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE} ({@code json_print_object()} in nvme-cli's
 * util/json.h), followed by the newline nvme-cli prints after it. Two spaces per level, {@code "key":value} with no
 * space after the colon, an empty array as {@code [} newline indent {@code ]}, '/' not escaped.
 *
 * <p>Values: {@link Map} (an object, in insertion order), {@link List} (an array), {@link String}, {@link Integer},
 * {@link Long}, {@link BigInteger} (numbers), {@link Boolean}. No reflection and no JSON library: the host
 * commands load this one small class instead of a JSON framework (start-up time, issue 16).
 */
public final class JsonC {

    private JsonC() {
    }

    /** A new object whose keys keep the order they are put in (json-c's linked hash). */
    public static Map<String, Object> object() {
        return new LinkedHashMap<>();
    }

    /** The document as nvme-cli prints it, including the final newline. */
    public static String print(Object value) {
        StringBuilder sb = new StringBuilder(4096);
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object value, int level) {
        switch (value) {
            case null -> sb.append("null");
            case Map<?, ?> m -> {
                sb.append("{\n");
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        sb.append(",\n");
                    }
                    first = false;
                    indent(sb, level + 1);
                    string(sb, e.getKey().toString());
                    sb.append(':');
                    write(sb, e.getValue(), level + 1);
                }
                if (!first) {
                    sb.append('\n');
                }
                indent(sb, level);
                sb.append('}');
            }
            case List<?> l -> {
                sb.append("[\n");
                boolean first = true;
                for (Object o : l) {
                    if (!first) {
                        sb.append(",\n");
                    }
                    first = false;
                    indent(sb, level + 1);
                    write(sb, o, level + 1);
                }
                if (!first) {
                    sb.append('\n');
                }
                indent(sb, level);
                sb.append(']');
            }
            case String s -> string(sb, s);
            case Integer i -> sb.append(i.intValue());
            case Long l -> sb.append(l.longValue());
            case BigInteger b -> sb.append(b);
            case Boolean b -> sb.append(b.booleanValue());
            case Double d -> sb.append(d.doubleValue());
            default -> throw new IllegalArgumentException("no JSON form for " + value.getClass());
        }
    }

    private static void indent(StringBuilder sb, int level) {
        sb.repeat(' ', 2 * level);
    }

    /** json-c's {@code json_escape_str()}: the short escapes, other control characters as \\u00XX. */
    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\b' -> sb.append("\\b");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\f' -> sb.append("\\f");
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < ' ') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
