package io.nvmf4j.initiator.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.fake.ScriptedController;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProbeTest {

    @Test
    void probeDiscoversConnectsAndVerifiesData() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 2;
        script.blocks = 65536;
        try (ScriptedController target = new ScriptedController(script)) {
            String address = "127.0.0.1:" + target.address().getPort();
            assertEquals(0, Probe.run(address, null, "softiwarp", true));
            // 16 x 4 KiB + 128 KiB (4 commands at MDTS 32 KiB) + 8 KiB copy path
            assertTrue(target.receivedIo(0x01).size() >= 16 + 4 + 1);
        }
    }
}
