package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.TargetConfig;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.verbs.RdmaProviders;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module graph of docs/ARCHITECTURE.md, section 1, held by the module descriptors the build produced (the
 * compiler already refuses a library module that imports what it does not require) and, for the cli module that
 * stays on the class path, by its source: cli -> {target, initiator, config}; target -> {protocol, common-verbs,
 * config}; initiator -> {protocol, common-verbs}; config -> protocol; protocol and common-verbs independent.
 */
class ModuleRulesTest {

    /** The nvmf4j modules each library module may require (directly). */
    static final Map<String, Set<String>> ALLOWED = Map.of(
            "io.nvmf4j.protocol", Set.of(),
            "io.nvmf4j.verbs", Set.of(),
            "io.nvmf4j.config", Set.of("io.nvmf4j.protocol"),
            "io.nvmf4j.target", Set.of("io.nvmf4j.protocol", "io.nvmf4j.verbs", "io.nvmf4j.config"),
            "io.nvmf4j.initiator", Set.of("io.nvmf4j.protocol", "io.nvmf4j.verbs"));

    /** The modules cli uses directly. */
    static final Set<String> CLI_USES = Set.of("io.nvmf4j.target", "io.nvmf4j.initiator", "io.nvmf4j.config");

    /**
     * Qualified exports ("exports X to Y"): each one is a debt listed in docs/ARCHITECTURE.md; a new one must be
     * listed here and there.
     */
    static final Set<String> QUALIFIED_EXPORTS = Set.of();

    /** Internal packages that must never be exported to everyone. */
    static final Set<String> INTERNAL = Set.of("io.nvmf4j.initiator.rdma", "io.nvmf4j.verbs.softiwarp",
            "io.nvmf4j.verbs.ibverbs", "io.nvmf4j.verbs.ibverbs.ffi", "io.nvmf4j.verbs.provider");

    static Map<String, ModuleDescriptor> libraryModules() throws URISyntaxException {
        List<Path> roots = new ArrayList<>();
        for (Class<?> c : List.of(Nqn.class, RdmaProviders.class, TargetConfig.class, NvmeTarget.class,
                NvmeController.class)) {
            roots.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
        }
        Map<String, ModuleDescriptor> modules = new TreeMap<>();
        for (ModuleReference ref : ModuleFinder.of(roots.toArray(Path[]::new)).findAll()) {
            ModuleDescriptor d = ref.descriptor();
            if (d.name().startsWith("io.nvmf4j.")) {
                modules.put(d.name(), d);
            }
        }
        return modules;
    }

    static Set<String> nvmf4jRequires(ModuleDescriptor d) {
        return d.requires().stream().map(ModuleDescriptor.Requires::name).filter(n -> n.startsWith("io.nvmf4j."))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The rule broken by a module's requires, or an empty list. */
    static List<String> violations(Map<String, ModuleDescriptor> modules) {
        List<String> broken = new ArrayList<>();
        for (ModuleDescriptor d : modules.values()) {
            Set<String> allowed = ALLOWED.get(d.name());
            if (allowed == null) {
                broken.add(d.name() + " is not a module of the architecture (docs/ARCHITECTURE.md section 1)");
                continue;
            }
            for (String r : nvmf4jRequires(d)) {
                if (!allowed.contains(r)) {
                    broken.add(d.name() + " requires " + r + ", allowed only " + allowed);
                }
            }
            for (ModuleDescriptor.Exports e : d.exports()) {
                if (e.isQualified() && !QUALIFIED_EXPORTS.contains(d.name() + "/" + e.source())) {
                    broken.add(d.name() + " exports " + e.source() + " to " + e.targets()
                            + ": a qualified export that is not a listed debt");
                }
                if (!e.isQualified() && INTERNAL.contains(e.source())) {
                    broken.add(d.name() + " exports its internal package " + e.source());
                }
            }
        }
        return broken;
    }

    @Test
    void everyLibraryModuleRequiresOnlyWhatTheArchitectureAllows() throws Exception {
        Map<String, ModuleDescriptor> modules = libraryModules();
        assertEquals(ALLOWED.keySet(), modules.keySet(), "a module-info.class for each library module");
        assertEquals(List.of(), violations(modules));
    }

    @Test
    void aModuleThatRequiresMoreOrExportsAnInternalPackageIsReported() {
        Map<String, ModuleDescriptor> modules = new TreeMap<>();
        modules.put("io.nvmf4j.protocol", ModuleDescriptor.newModule("io.nvmf4j.protocol")
                .requires("io.nvmf4j.verbs").exports("io.nvmf4j.protocol").build());
        modules.put("io.nvmf4j.initiator", ModuleDescriptor.newModule("io.nvmf4j.initiator")
                .requires("io.nvmf4j.protocol").exports("io.nvmf4j.initiator").exports("io.nvmf4j.initiator.rdma")
                .build());
        assertEquals(List.of("io.nvmf4j.initiator exports its internal package io.nvmf4j.initiator.rdma",
                "io.nvmf4j.protocol requires io.nvmf4j.verbs, allowed only []"), violations(modules));
    }

    private static final Pattern NVMF4J_NAME = Pattern.compile("\\bio\\.nvmf4j\\.((?:[a-z][a-z0-9]*\\.)*)[A-Z]");

    /** Every package of another nvmf4j module that the cli sources name (import or fully qualified name). */
    static Map<String, Set<String>> cliPackageUses(Path sources) throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = NVMF4J_NAME.matcher(Files.readString(f));
                while (m.find()) {
                    String pkg = "io.nvmf4j." + m.group(1).replaceAll("\\.$", "");
                    if (!pkg.equals("io.nvmf4j.cli") && !pkg.startsWith("io.nvmf4j.cli.")) {
                        uses.computeIfAbsent(pkg, k -> new TreeSet<>()).add(sources.relativize(f).toString());
                    }
                }
            }
        }
        return uses;
    }

    /** The packages cli may name: those exported by the modules it uses and by what they require transitively. */
    static Set<String> cliVisiblePackages(Map<String, ModuleDescriptor> modules) {
        Set<String> reachable = new TreeSet<>();
        List<String> todo = new ArrayList<>(CLI_USES);
        while (!todo.isEmpty()) {
            String name = todo.removeLast();
            ModuleDescriptor d = modules.get(name);
            if (d == null || !reachable.add(name)) {
                continue;
            }
            d.requires().stream().filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                    .map(ModuleDescriptor.Requires::name).forEach(todo::add);
        }
        Set<String> visible = new TreeSet<>();
        for (String name : reachable) {
            for (ModuleDescriptor.Exports e : modules.get(name).exports()) {
                if (!e.isQualified() || e.targets().contains("io.nvmf4j.cli")) {
                    visible.add(e.source());
                }
            }
        }
        return visible;
    }

    @Test
    void cliNamesOnlyExportedPackagesOfTheModulesItUses() throws Exception {
        Set<String> visible = cliVisiblePackages(libraryModules());
        assertTrue(visible.contains("io.nvmf4j.initiator") && !visible.contains("io.nvmf4j.initiator.rdma"), visible::toString);
        Map<String, Set<String>> uses = cliPackageUses(Path.of("src/main/java"));
        assertTrue(uses.containsKey("io.nvmf4j.initiator"), "the scan sees cli's imports");
        Map<String, Set<String>> hidden = new TreeMap<>(uses);
        hidden.keySet().removeAll(visible);
        assertEquals(Map.of(), hidden, "cli uses packages that the modules it depends on do not export");
    }
}
