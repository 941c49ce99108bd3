package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.config.ConfigException;
import io.nvmf4j.config.ConfigLoader;
import io.nvmf4j.config.ConfigProblem;
import io.nvmf4j.target.rdma.RdmaTransportOptions;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What README.md and config/README.md say about serve's configuration is what serve does. */
class DocsAgreeWithServeTest {

    private static List<String> lines(String file) throws Exception {
        return Files.readAllLines(Path.of("..", file));
    }

    /** The lines of the first code block after the line that starts with {@code intro}. */
    private static List<String> blockAfter(List<String> doc, String intro) {
        int i = 0;
        while (!doc.get(i).startsWith(intro)) {
            i++;
        }
        while (!doc.get(i).startsWith("```")) {
            i++;
        }
        List<String> block = new ArrayList<>();
        for (i++; !doc.get(i).equals("```"); i++) {
            block.add(doc.get(i));
        }
        return block;
    }

    @Test
    void theReadmesBadConfigLinesAreWhatTheLoaderPrintsAndAnFcPortIsOnlyAWarning() throws Exception {
        String json;
        try (InputStream in = getClass().getResourceAsStream("/io/nvmf4j/cli/readme-bad-config.json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.withoutDevicePathChecks().parse(json, "config.json", Path.of(".")));
        assertEquals(String.join("\n", blockAfter(lines("README.md"), "A bad file gives one line per problem")),
                e.getMessage(), "the README's example of a bad configuration file");
        // the same file with its two errors fixed: it loads, the fc port skipped with a warning
        String fixed = json.replace("\"nsid\": 0,", "\"nsid\": 2,").replace("\"adrfam\": \"ib\"", "\"adrfam\": \"ipv4\"");
        List<ConfigProblem> warnings = ConfigLoader.withoutDevicePathChecks()
                .parse(fixed, "config.json", Path.of(".")).warnings();
        assertTrue(warnings.stream().anyMatch(w -> w.path().equals("ports[1].addr.trtype")
                && w.message().contains("\"fc\"") && w.message().contains("skipped")), warnings.toString());
    }

    @Test
    void pollGroupsZeroMeansTheSameInHelpConfigReadmeAndCode() throws Exception {
        assertEquals(Math.max(1, Runtime.getRuntime().availableProcessors() / 2),
                RdmaTransportOptions.defaultPollGroups(), "what " + ServeCli.POLL_GROUPS_DEFAULT + " stands for");
        String help = new CommandLine(new ServeCli()).getCommandSpec().findOption("--poll-groups")
                .description()[0];
        assertTrue(help.contains(ServeCli.POLL_GROUPS_DEFAULT), help);
        String row = lines("config/README.md").stream().filter(l -> l.startsWith("| `poll_groups.count` |"))
                .findFirst().orElseThrow();
        assertTrue(row.contains("0 = " + ServeCli.POLL_GROUPS_DEFAULT), row);
    }
}
