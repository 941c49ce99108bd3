package io.nvmf4j.config.fuzz;

import io.nvmf4j.testsupport.FuzzSupport;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nvmf4j.config.ConfigException;
import io.nvmf4j.config.ConfigLoader;
import io.nvmf4j.config.TargetConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generative fuzzing of the configuration loader on arbitrary text (a saveconfig.json from anywhere): the JSON
 * reader and the nvmetcli/nvmf4j section readers may only refuse with {@link ConfigException} (one line per
 * problem); what loads writes back ({@code toJson}) to a file that loads to the same model and the same text.
 * Device paths are not checked (no file system access per input); corpus: the nvmetcli examples.
 */
class ConfigFuzzTest {

    private static final ConfigLoader LOADER = ConfigLoader.withoutDevicePathChecks();
    private static final Path BASE = Path.of("/nonexistent-fuzz-base");

    @FuzzTest(maxDuration = "10m")
    void configText(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT + 64L * input.length, () -> {
            TargetConfig first;
            try {
                first = LOADER.parse(text, "fuzz.json", BASE).config();
            } catch (ConfigException e) {
                if (e.getMessage() == null || e.getMessage().isBlank()) {
                    throw new AssertionError("a ConfigException without a message", e);
                }
                return;
            }
            String written = first.toJson();
            TargetConfig second;
            try {
                second = LOADER.parse(written, "written.json", BASE).config();
            } catch (ConfigException e) {
                throw new AssertionError("what loaded does not load again once written:\n" + written, e);
            }
            FuzzSupport.assertStable(first, second, input);
            FuzzSupport.assertStable(written, second.toJson(), input);
        }, ConfigException.class);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fewThousandMutationsOfTheCorpus() {
        FuzzSupport.shortRun(getClass(), "configText", 16384, FuzzSupport.shortRunInputs(3000), 4, this::configText);
    }
}
