package io.nvmf4j.cli.host;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;

/** JSON output of the host commands: pretty-printed, keys in the order they were put, one document per run. */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    public static void print(PrintWriter out, Object document) {
        try {
            out.println(MAPPER.writeValueAsString(document));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    public static String hex(long value, int digits) {
        return String.format("0x%0" + digits + "x", value);
    }
}
