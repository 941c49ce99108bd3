package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/ARCHITECTURE.md's two tables that go stale without anyone noticing, held against the code: the Java
 * modules' exports (section 1, "Java modules") against the module descriptors the build produced, and the thread
 * table (section 2) against the sources: each thread's name is made in its module, and each class it names exists
 * there.
 */
class ArchitectureDocTest {

    /** The doc's module column (Maven module) to the Java module's root package. */
    private static final Map<String, String> ROOT_PACKAGE = Map.of(
            "protocol", "io.nvmf4j.protocol",
            "common-verbs", "io.nvmf4j.verbs",
            "config", "io.nvmf4j.config",
            "target", "io.nvmf4j.target",
            "initiator", "io.nvmf4j.initiator");

    /** A backticked name in a table cell. */
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void theExportsTableListsWhatEachModuleExportsAndNothingElse() throws Exception {
        Map<String, ModuleDescriptor> modules = ModuleRulesTest.libraryModules();
        List<String[]> rows = table("### Java modules");
        int checked = 0;
        for (String[] row : rows) {
            String maven = strip(row[0]);
            String root = ROOT_PACKAGE.get(maven);
            if (root == null) {
                continue; // cli and test-support: the class path, no descriptor
            }
            ModuleDescriptor d = modules.get(strip(row[1]));
            assertTrue(d != null, "the doc names module " + row[1] + " for " + maven + "; the build has "
                    + modules.keySet());
            Set<String> exported = d.exports().stream().filter(e -> !e.isQualified())
                    .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(exported, packages(row[2], root), maven + ": the exports column of docs/ARCHITECTURE.md");
            for (String internal : packages(row[3], root)) {
                assertTrue(d.packages().contains(internal), maven + ": the doc lists " + internal
                        + " as internal, the module has no such package");
                assertFalse(exported.contains(internal), maven + " exports " + internal + ", which the doc calls "
                        + "internal");
            }
            checked++;
        }
        assertEquals(ROOT_PACKAGE.size(), checked, "every library module has its row");
    }

    @Test
    void everyThreadInTheTableIsNamedAndItsClassesLiveInTheModuleItSays() throws IOException {
        List<String[]> rows = table("| thread (name) |");
        assertTrue(rows.size() >= 10, "the thread table was found: " + rows.size() + " rows");
        List<String> wrong = new ArrayList<>();
        for (String[] row : rows) {
            String module = strip(row[1]);
            Path main = repository().resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(main)) {
                wrong.add(row[0] + ": no module " + module);
                continue;
            }
            String sources = text(main);
            Matcher m = CODE.matcher(row[0]);
            while (m.find()) {
                String code = m.group(1);
                if (code.contains("/") || Character.isUpperCase(code.charAt(0))) {
                    // the class that runs it: cli/.../MetricsEndpoint, RdmaTransport.PortListener
                    String simple = code.substring(code.lastIndexOf('/') + 1).split("\\.")[0];
                    if (Character.isUpperCase(simple.charAt(0)) && !sources.contains("class " + simple + " ")
                            && !sources.contains("record " + simple + "(")) {
                        wrong.add(row[0] + ": no class " + simple + " in " + module);
                    }
                    continue;
                }
                // a thread name: its literal part, up to the first <placeholder> or *
                String prefix = code.split("[<*]", 2)[0];
                if (!sources.contains("\"" + prefix)) {
                    wrong.add(row[0] + ": no string \"" + prefix + "...\" in " + module + "'s sources");
                }
            }
        }
        assertEquals(List.of(), wrong, "docs/ARCHITECTURE.md section 2, the thread table");
    }

    /**
     * The packages a table cell names: full names, or relative to {@code root} ("`.admin`", "`protocol`"); names
     * inside "(+ ...)" are sub-packages of the package before it. Class names and clauses are passed over.
     */
    static Set<String> packages(String cell, String root) {
        Set<String> names = new TreeSet<>();
        String last = root;
        boolean sub = false;
        int at = 0;
        Matcher m = CODE.matcher(cell);
        while (m.find()) {
            String between = cell.substring(at, m.start());
            at = m.end();
            if (between.contains("(+")) {
                sub = true;
            } else if (between.contains(")")) {
                sub = false;
            }
            String code = m.group(1);
            String name;
            if (code.startsWith("io.nvmf4j.")) {
                name = code;
            } else if (code.startsWith(".")) {
                name = (sub ? last : root) + code;
            } else if (code.matches("[a-z][a-z-]*")) {
                name = "io.nvmf4j." + code;
            } else {
                continue; // a class (`IoUring`), another library's package, "provides RdmaProvider with"
            }
            if (!sub) {
                last = name;
            }
            names.add(name);
        }
        return names;
    }

    /** The rows (cells, pipes removed) of the first table whose header line starts with or follows {@code marker}. */
    static List<String[]> table(String marker) throws IOException {
        List<String> lines = Files.readAllLines(repository().resolve("docs/ARCHITECTURE.md"));
        int i = 0;
        while (i < lines.size() && !lines.get(i).startsWith(marker)) {
            i++;
        }
        while (i < lines.size() && !lines.get(i).startsWith("|")) {
            i++;
        }
        List<String[]> rows = new ArrayList<>();
        for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) { // past the header and |---|
            String line = lines.get(i);
            rows.add(line.substring(1, line.length() - 1).split(" \\| "));
        }
        return rows;
    }

    private static String strip(String cell) {
        return cell.replace("`", "").trim();
    }

    private static String text(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            StringBuilder all = new StringBuilder();
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> {
                try {
                    all.append(Files.readString(p)).append('\n');
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            return all.toString();
        }
    }

    /** The repository root: the surefire working directory is the module's, one below it. */
    static Path repository() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("docs/ARCHITECTURE.md"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "docs/ARCHITECTURE.md above " + Path.of("").toAbsolutePath());
        return p;
    }
}
