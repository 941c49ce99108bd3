package io.nvmf4j.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The complete example in config/README.md is a valid configuration (the doc cannot drift from the code). */
class ReadmeExampleTest {

    @Test
    void completeExampleInTheReadmeLoadsWithoutWarnings() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("```json\n") + "```json\n".length();
        String json = readme.substring(start, readme.indexOf("```", start));
        LoadedConfig loaded = ConfigLoader.withoutDevicePathChecks().parse(json, "README.md", null);
        assertEquals("", loaded.formatWarnings());
        TargetConfig c = loaded.config();
        assertEquals(2, c.subsystems().getFirst().namespaces().size());
        assertEquals(9464, c.nvmf4j().metricsPort());
    }
}
