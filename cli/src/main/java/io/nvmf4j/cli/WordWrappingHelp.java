package io.nvmf4j.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * picocli's usage help, wrapped at spaces only. picocli breaks lines where {@link java.text.BreakIterator} allows,
 * which includes after "." and ":" inside a word: {@code nvme-cli 2.x} came out as "2." and "x",
 * {@code --listen=ADDR[:PORT]} as "ADDR[:" and "PORT]", {@code nvmf4j.poll_groups.count} and URLs cut in two; an
 * example copied from such help does not run. Here a line breaks only at a space, so a token (option, path, NQN,
 * address, URL) stays whole; one longer than its column is still cut, as picocli does.
 */
final class WordWrappingHelp extends CommandLine.Help {

    /** Installs this help on {@code cl} and all its subcommands (call after adding them). */
    static CommandLine install(CommandLine cl) {
        return cl.setHelpFactory(WordWrappingHelp::new);
    }

    WordWrappingHelp(CommandSpec spec, ColorScheme scheme) {
        super(spec, scheme);
    }

    @Override
    public String description(Object... params) {
        return join(commandSpec().usageMessage().description(), params);
    }

    @Override
    public String header(Object... params) {
        return join(commandSpec().usageMessage().header(), params);
    }

    @Override
    public String footer(Object... params) {
        return join(commandSpec().usageMessage().footer(), params);
    }

    /** As picocli's Help.join(): each element formatted, its lines in one full-width column. */
    private String join(String[] values, Object... params) {
        StringBuilder sb = new StringBuilder();
        if (values == null || values.length == 0) {
            return "";
        }
        TextTable table = new SpaceWrappingTable(colorScheme(), new Column(width(), 0, Column.Overflow.WRAP));
        table.indentWrappedLines = 0;
        for (String value : values) {
            for (Text line : colorScheme().text(String.format(value, params)).splitLines()) {
                table.addRowValues(line);
            }
        }
        return table.toString(sb).toString();
    }

    /** picocli's command list (name, then the first header or description line), with this wrapping. */
    @Override
    public String commandList(java.util.Map<String, CommandLine.Help> subcommands) {
        if (subcommands.isEmpty()) {
            return "";
        }
        int longest = 0;
        for (String name : subcommands.keySet()) {
            longest = Math.max(longest, name.length());
        }
        int commandLength = Math.min(longest, width() / 2);
        TextTable table = new SpaceWrappingTable(colorScheme(), new Column(commandLength + 2, 2, Column.Overflow.SPAN),
                new Column(width() - (commandLength + 2), 2, Column.Overflow.WRAP));
        for (CommandLine.Help help : subcommands.values()) {
            CommandLine.Model.UsageMessageSpec usage = help.commandSpec().usageMessage();
            String first = usage.header().length > 0 ? usage.header()[0]
                    : usage.description().length > 0 ? usage.description()[0] : "";
            Text[] lines = colorScheme().text(String.format(first)).splitLines();
            for (int i = 0; i < lines.length; i++) {
                table.addRowValues(i == 0 ? help.commandNamesText(", ") : colorScheme().text(""), lines[i]);
            }
        }
        return table.toString();
    }

    @Override
    public Layout createDefaultLayout(List<OptionSpec> options, List<PositionalParamSpec> positionals,
                                      ColorScheme scheme) {
        TextTable picocli = TextTable.forDefaultColumns(scheme, calcLongOptionColumnWidth(options, positionals,
                scheme), width());
        TextTable table = new SpaceWrappingTable(scheme, picocli.columns());
        table.indentWrappedLines = picocli.indentWrappedLines;
        return new Layout(scheme, table, createDefaultOptionRenderer(), createDefaultParameterRenderer());
    }

    /** picocli's insertSynopsisCommandName(), with this wrapping: the synopsis keeps [--listen=ADDR[:PORT]] whole. */
    @Override
    protected String insertSynopsisCommandName(int synopsisHeadingLength, Text optionText) {
        String name = commandSpec().qualifiedName();
        int indent = synopsisHeadingLength + name.length() + 1;
        CommandLine.Model.UsageMessageSpec usage = commandSpec().usageMessage();
        if (indent > usage.synopsisAutoIndentThreshold() * width()) {
            indent = usage.synopsisIndent() < 0 ? synopsisHeadingLength : usage.synopsisIndent();
            indent = Math.min(indent, (int) (0.9 * width()));
        }
        TextTable table = new SpaceWrappingTable(colorScheme(), new Column(width(), 0, Column.Overflow.WRAP));
        table.indentWrappedLines = indent;
        Text padding = colorScheme().text("X".repeat(synopsisHeadingLength));
        table.addRowValues(padding.concat(colorScheme().commandText(name)).concat(optionText));
        return table.toString().substring(synopsisHeadingLength);
    }

    private int width() {
        return commandSpec().usageMessage().width();
    }

    /**
     * A table whose last, wrapping column breaks a value at spaces: each piece is handed to picocli already short
     * enough for the column, so picocli's own line breaking never runs on it.
     */
    static final class SpaceWrappingTable extends TextTable {
        private final ColorScheme scheme;

        SpaceWrappingTable(ColorScheme scheme, Column... columns) {
            super(scheme, columns);
            this.scheme = scheme;
        }

        @Override
        public Cell putValue(int row, int col, Text value) {
            Column[] columns = columns();
            Column column = columns[col];
            if (value == null || col != columns.length - 1 || column.overflow != Column.Overflow.WRAP) {
                return super.putValue(row, col, value);
            }
            String plain = value.plainString();
            int start = 0;
            int r = row;
            boolean first = true;
            while (true) {
                int lead = first ? 0 : indentWrappedLines;
                int end = lineEnd(plain, start, column.width - column.indent - lead);
                Text piece = value.substring(start, end);
                if (!first) {
                    piece = scheme.text(" ".repeat(lead)).concat(piece);
                }
                Cell cell = super.putValue(r, col, piece);
                start = end;
                if (start >= plain.length()) {
                    return cell;
                }
                addEmptyRow();
                r = rowCount() - 1;
                first = false;
            }
        }

        /**
         * Where the line that starts at {@code start} ends: after the last space run that fits in {@code room}
         * characters (the run counted, as picocli counts a word with its trailing space), the whole rest when it
         * fits, else a hard cut of a word longer than the column.
         */
        static int lineEnd(String s, int start, int room) {
            int limit = Math.max(1, room);
            if (s.length() - start <= limit) {
                return s.length();
            }
            int best = -1;
            for (int i = start; i < s.length() && i - start < limit; i++) {
                if (s.charAt(i) == ' ' && (i + 1 == s.length() || s.charAt(i + 1) != ' ')) {
                    best = i + 1;
                }
            }
            return best > start ? best : start + limit;
        }
    }
}
