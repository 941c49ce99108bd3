package io.nvmf4j.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON tree that remembers where each value started, so every configuration problem can name its line.
 * Jackson's own {@code JsonNode} forgets locations; this reads the token stream once and keeps them.
 */
sealed interface JsonTree {

    /** Jackson names the (redacted) source inside some messages; the problem line already names the file. */
    java.util.regex.Pattern SOURCE_IN_MESSAGE = java.util.regex.Pattern.compile(
            "\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]");

    int line();

    int column();

    /** A short name of the JSON type for messages ("an object", "a string", ...). */
    String kind();

    record JObject(Map<String, JsonTree> fields, int line, int column) implements JsonTree {
        @Override
        public String kind() {
            return "an object";
        }
    }

    record JArray(List<JsonTree> items, int line, int column) implements JsonTree {
        @Override
        public String kind() {
            return "an array";
        }
    }

    /** A string, number, boolean or null; {@code text} is the literal text (numbers unformatted). */
    record JScalar(JsonToken token, String text, int line, int column) implements JsonTree {
        @Override
        public String kind() {
            return switch (token) {
                case VALUE_STRING -> "a string";
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
                case VALUE_TRUE, VALUE_FALSE -> "a boolean";
                default -> "null";
            };
        }

        boolean isNull() {
            return token == JsonToken.VALUE_NULL;
        }
    }

    /**
     * Parses a whole document. Syntax errors become one problem with line and column; a key given twice in one
     * object is reported too (Python's json module, which nvmetcli uses, silently keeps the last one).
     */
    static JsonTree parse(String text, List<ConfigProblem> problems) throws MalformedJson {
        JsonFactory factory = JsonFactory.builder().build();
        try (JsonParser parser = factory.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new MalformedJson(new ConfigProblem("", 1, 1, "malformed JSON: the document is empty"));
            }
            JsonTree root = read(parser, "", problems);
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                JsonLocation at = parser.currentTokenLocation();
                throw new MalformedJson(new ConfigProblem("", at.getLineNr(), at.getColumnNr(),
                        "malformed JSON: unexpected content after the end of the top-level value"));
            }
            return root;
        } catch (StreamReadException e) {
            JsonLocation at = e.getLocation();
            int line = at == null ? 0 : at.getLineNr();
            int column = at == null ? 0 : at.getColumnNr();
            throw new MalformedJson(new ConfigProblem("", line, column, "malformed JSON: "
                    + SOURCE_IN_MESSAGE.matcher(e.getOriginalMessage()).replaceAll("line $1, column $2")));
        } catch (IOException e) {
            throw new MalformedJson(new ConfigProblem("", 0, 0, "malformed JSON: " + e.getMessage()));
        }
    }

    private static JsonTree read(JsonParser parser, String path, List<ConfigProblem> problems) throws IOException {
        JsonLocation at = parser.currentTokenLocation();
        int line = at.getLineNr();
        int column = at.getColumnNr();
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT -> {
                Map<String, JsonTree> fields = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    int keyLine = parser.currentTokenLocation().getLineNr();
                    parser.nextToken();
                    String childPath = path.isEmpty() ? name : path + "." + name;
                    JsonTree value = read(parser, childPath, problems);
                    if (fields.put(name, value) != null) {
                        problems.add(new ConfigProblem(childPath, keyLine, 0,
                                "given more than once in the same object (the last one is used)"));
                    }
                }
                return new JObject(fields, line, column);
            }
            case START_ARRAY -> {
                List<JsonTree> items = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    items.add(read(parser, path + "[" + items.size() + "]", problems));
                }
                return new JArray(items, line, column);
            }
            default -> {
                return new JScalar(token, parser.getText(), line, column);
            }
        }
    }

    /** The document is not JSON at all; carries the single problem with its position. */
    final class MalformedJson extends Exception {
        private static final long serialVersionUID = 1L;

        @SuppressWarnings("serial") // never serialized: caught inside the config reader and turned into a ConfigException
        private final ConfigProblem problem;

        MalformedJson(ConfigProblem problem) {
            super(problem.message(), null, false, false);
            this.problem = problem;
        }

        ConfigProblem problem() {
            return problem;
        }
    }
}
