package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What {@code nvmf4j ... --help} prints on an 80-column terminal: lines break between words, never inside an option,
 * path, address, URL or version ("nvme-cli 2." / "x's" was one), and every example is printed whole on its own
 * lines, so it can be copied and run.
 */
class HelpWrappingTest {

    /** name -> usage text, for the command and every subcommand below it. */
    private static void usages(CommandLine cl, String name, List<String[]> into) {
        StringWriter w = new StringWriter();
        cl.usage(new PrintWriter(w));
        into.add(new String[] {name, w.toString()});
        for (var sub : cl.getSubcommands().entrySet()) {
            if (!sub.getKey().equals("help")) {
                usages(sub.getValue(), name + " " + sub.getKey(), into);
            }
        }
    }

    private static List<String[]> usages(int width) {
        CommandLine all = Nvmf4j.commandLine();
        all.setUsageHelpWidth(width);
        List<String[]> list = new ArrayList<>();
        usages(all, "nvmf4j", list);
        return list;
    }

    @Test
    void noHelpLineBreaksInsideAWord() {
        List<String[]> narrow = usages(80);
        List<String[]> wide = usages(2000);
        List<String> cut = new ArrayList<>();
        for (int c = 0; c < narrow.size(); c++) {
            Set<String> wideTokens = new HashSet<>(Arrays.asList(wide.get(c)[1].split("\\s+")));
            String[] lines = narrow.get(c)[1].split("\n");
            for (int i = 0; i + 1 < lines.length; i++) {
                String a = lines[i].strip();
                String b = lines[i + 1].strip();
                if (a.isEmpty() || b.isEmpty() || lines[i].endsWith(" ")) {
                    continue;
                }
                String last = a.substring(a.lastIndexOf(' ') + 1);
                String first = b.split(" ")[0];
                if (wideTokens.contains(last + first)) {
                    cut.add(narrow.get(c)[0] + ": '" + last + "' / '" + first + "'");
                }
            }
        }
        assertTrue(cut.isEmpty(), "words cut at the end of a help line:\n" + String.join("\n", cut));
    }

    /** An example: an indented "nvmf4j ..." line, "Example: nvmf4j ...", and the lines a trailing "\" continues. */
    private static List<String> examples(CommandLine.Model.CommandSpec spec) {
        List<String> lines = new ArrayList<>();
        List<String> text = new ArrayList<>(Arrays.asList(spec.usageMessage().description()));
        text.addAll(Arrays.asList(spec.usageMessage().footer()));
        for (String element : text) {
            boolean continued = false;
            for (String line : String.format(element).split("\n")) {
                String s = line.stripTrailing();
                if (continued || s.matches("\\s+(\\$ )?nvmf4j .*") || s.startsWith("Example: nvmf4j ")) {
                    lines.add(s);
                    continued = s.endsWith("\\");
                }
            }
        }
        return lines;
    }

    private static void examples(CommandLine cl, String name, List<String> problems) {
        StringWriter w = new StringWriter();
        cl.usage(new PrintWriter(w));
        List<String> printed = Arrays.asList(w.toString().split("\n"));
        for (String example : examples(cl.getCommandSpec())) {
            if (!printed.contains(example)) {
                problems.add(name + ": '" + example + "'");
            }
        }
        for (var sub : cl.getSubcommands().entrySet()) {
            if (!sub.getKey().equals("help")) {
                examples(sub.getValue(), name + " " + sub.getKey(), problems);
            }
        }
    }

    @Test
    void everyExampleInTheHelpIsPrintedWholeOnItsOwnLines() {
        List<String> problems = new ArrayList<>();
        examples(Nvmf4j.commandLine(), "nvmf4j", problems);
        assertTrue(problems.isEmpty(), "examples wrapped (longer than 80 columns; continue them with \\):\n"
                + String.join("\n", problems));
    }
}
