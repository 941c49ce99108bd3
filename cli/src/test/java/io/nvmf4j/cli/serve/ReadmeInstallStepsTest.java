package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.nvmf4j.config.ConfigLoader;
import io.nvmf4j.config.LoadedConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's "Running as a system service" steps, as an operator pastes them: the configuration they leave in
 * /etc/nvmf4j/config.json must load, and no step may ask a daemon that cannot answer (one started with --no-rpc
 * has no management socket, so a {@code ctl save} after it can only fail).
 */
class ReadmeInstallStepsTest {

    @TempDir
    Path dir;

    private static List<String> installBlock() throws Exception {
        Path readme = Files.exists(Path.of("..", "README.md")) ? Path.of("..", "README.md") : Path.of("README.md");
        List<String> lines = Files.readAllLines(readme);
        int section = lines.indexOf("## Running as a system service");
        assertTrue(section >= 0, "README has the section");
        int start = -1;
        for (int i = section; i < lines.size(); i++) {
            if (start < 0 && lines.get(i).equals("```sh")) {
                start = i + 1;
            } else if (start >= 0 && lines.get(i).equals("```")) {
                return lines.subList(start, i);
            }
        }
        return fail("no sh block in the section");
    }

    @Test
    void noStepAsksADaemonThatHasNoSocket() throws Exception {
        boolean daemonWithoutSocket = false;
        for (String line : installBlock()) {
            String command = line.replaceAll("\\s+#.*$", "");
            if (command.contains("nvmf4j serve") && command.contains("--no-rpc")) {
                daemonWithoutSocket = true;
            }
            if (command.matches(".*nvmf4j (ctl|rpc) .*")) {
                assertFalse(daemonWithoutSocket, "'" + line.strip() + "' asks a daemon started with --no-rpc");
            }
        }
    }

    @Test
    void theConfigurationTheStepsWriteLoadsAndServesTheDiskTheyMade() throws Exception {
        List<String> block = installBlock();
        int from = -1;
        int to = -1;
        for (int i = 0; i < block.size(); i++) {
            if (block.get(i).startsWith("cat > /etc/nvmf4j/config.json <<'EOF'")) {
                from = i + 1;
            } else if (from >= 0 && block.get(i).equals("EOF")) {
                to = i;
                break;
            }
        }
        assertTrue(from > 0 && to > from, "the steps write /etc/nvmf4j/config.json with a here-document");
        String json = String.join("\n", block.subList(from, to));
        assertTrue(block.stream().anyMatch(l -> l.startsWith("truncate -s 1G /var/lib/nvmf4j/disk.img")),
                "the steps make the disk the configuration names");
        Path config = dir.resolve("config.json");
        Path disk = dir.resolve("disk.img");
        Files.writeString(config, json.replace("/var/lib/nvmf4j/disk.img", disk.toString()));
        Files.write(disk, new byte[1 << 20]);
        LoadedConfig loaded = ConfigLoader.standard().load(config);
        assertEquals(List.of(), loaded.warnings(), "no warning at start");
        assertEquals(1, loaded.config().ports().size());
        assertEquals("nqn.2026-12.io.nvmf4j:disk", loaded.config().subsystems().getFirst().nqn());
        assertEquals(1, loaded.config().subsystems().getFirst().namespaces().size());
    }
}
