package io.nvmf4j.cli.library;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.demo.EmbeddedTarget;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Java program using the initiator library with the default provider, on a machine whose kernel offers no RDMA
 * device to user space (an empty device directory stands in for the machine's), runs on softiwarp; it did not
 * enable native access and must not get the JVM's four warning lines about restricted methods it never needed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibraryWithoutNativeAccessTest {

    @Test
    void theDefaultProviderOnAMachineWithoutRdmaDevicesTouchesNoNativeCode(@TempDir Path dir) throws Exception {
        Path noDevices = Files.createDirectory(dir.resolve("infiniband_verbs"));
        try (EmbeddedTarget target = EmbeddedTarget.start(1L << 20, 512, "softiwarp", 0, 1)) {
            List<String> cmd = List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "-Dnvmf4j.ibverbs.sysfs=" + noDevices,
                    "-cp", System.getProperty("java.class.path"),
                    DefaultProviderClient.class.getName(),
                    "127.0.0.1", Integer.toString(target.address().getPort()), EmbeddedTarget.SUBSYSTEM.value());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (java.io.IOException e) {
                    return "(output unreadable: " + e + ")";
                }
            });
            try {
                assertTrue(p.waitFor(90, TimeUnit.SECONDS), "the client did not finish within 90 s");
            } finally {
                p.destroyForcibly();
            }
            String out = output.get(10, TimeUnit.SECONDS);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("read 1 block of 512 bytes"), out);
            assertFalse(out.contains("WARNING"), "no JVM warning:\n" + out);
        }
    }
}
