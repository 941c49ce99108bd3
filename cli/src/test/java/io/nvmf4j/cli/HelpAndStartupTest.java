package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command answers --help cleanly, and a command line builds only the subcommand it names (start-up). */
class HelpAndStartupTest {

    @Test
    void everyCommandAnswersHelpWithItsUsage() {
        for (String command : Nvmf4j.SUBCOMMANDS.keySet()) {
            CliRunner.Result r = CliRunner.run(command, "--help");
            assertEquals(0, r.exitCode(), command + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: nvmf4j " + command), command + ": " + r.out());
        }
    }

    @Test
    void modulesHelpIsTheUsageNotAnUnknownOption() {
        CliRunner.Result r = CliRunner.run("modules", "--help");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().startsWith("Usage: nvmf4j modules"), r.out());
    }

    /**
     * picocli wraps each description element on its own: an element that stops mid-sentence breaks the line there
     * whatever the width. So each element is a whole paragraph (or an example: indented, or "Word: nvmf4j ...").
     */
    @Test
    void everyDescriptionElementIsAWholeParagraph() {
        CommandLine all = Nvmf4j.commandLine();
        for (CommandLine sub : all.getSubcommands().values()) {
            for (String element : sub.getCommandSpec().usageMessage().description()) {
                String e = element.replace("%n", "").strip();
                boolean example = element.startsWith(" ") || e.matches("[A-Z][a-z]*: nvmf4j .*");
                assertTrue(example || e.endsWith(".") || e.endsWith(":") || e.endsWith(")"),
                        sub.getCommandName() + ": description element ends mid-sentence: '" + element + "'");
            }
        }
    }

    @Test
    void demoHelpKeepsItsSentencesTogether() {
        String help = CliRunner.run("demo", "--help").out();
        assertFalse(help.contains("sockets and\n"), help);
        assertFalse(help.contains("QD32, and\n128"), help);
    }

    @Test
    void aCommandLineBuildsOnlyTheSubcommandItNames() {
        assertEquals(Set.of("discover"), Nvmf4j.commandLine("discover", "-a", "127.0.0.1").getSubcommands()
                .keySet());
        assertEquals(Set.of(), Nvmf4j.commandLine("--version").getSubcommands().keySet());
        assertEquals(Nvmf4j.SUBCOMMANDS.size() + 1, Nvmf4j.commandLine("help").getSubcommands().size());
        assertEquals(Nvmf4j.SUBCOMMANDS.size() + 1, Nvmf4j.commandLine("no-such-command").getSubcommands().size());
    }

    @Test
    void everyRegisteredNameIsItsCommandsOwnName() {
        for (var e : Nvmf4j.commandLine().getSubcommands().entrySet()) {
            assertEquals(e.getKey(), e.getValue().getCommandSpec().name());
        }
    }

    @Test
    void anUnknownCommandIsPicoclisUsageError() {
        CliRunner.Result r = CliRunner.run("no-such-command");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().startsWith("Unmatched argument at index 0: 'no-such-command'"), r.err());
    }
}
