package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nvme-cli's files and the DMI system UUID, in a temporary folder (never /etc, never the machine's DMI). */
class HostIdentityTest {

    static final String DMI = "4c4c4544-0034-3010-8035-b9c04f503432";

    private static HostIdentity.Sources sources(Path dir) {
        return HostIdentity.Sources.of(dir.resolve("etc-nvme"), dir.resolve("product_uuid"));
    }

    private static Path etc(Path dir) throws Exception {
        return Files.createDirectories(dir.resolve("etc-nvme"));
    }

    @Test
    void readsHostnqnAndHostidFirstLines(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("hostnqn"), "nqn.2014-08.org.nvmexpress:uuid:0a4e5f9c-1b2d-4c3e-8f70-123456789abc\n");
        Files.writeString(dir.resolve("hostid"), "5b8f0f7e-2f43-4d6b-9b3a-0123456789ab\n");
        HostIdentity id = HostIdentity.load(dir);
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:0a4e5f9c-1b2d-4c3e-8f70-123456789abc", id.hostNqn().value());
        assertEquals(UUID.fromString("5b8f0f7e-2f43-4d6b-9b3a-0123456789ab"), id.hostId());
    }

    @Test
    void missingHostidIsTheUuidOfTheHostnqn(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("hostnqn"), "nqn.2014-08.org.nvmexpress:uuid:0a4e5f9c-1b2d-4c3e-8f70-123456789abc");
        assertEquals(UUID.fromString("0a4e5f9c-1b2d-4c3e-8f70-123456789abc"), HostIdentity.load(dir).hostId());
    }

    @Test
    void withoutFilesTheDmiSystemUuidGivesTheSameIdentityEveryTime(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("product_uuid"), DMI + "\n");
        HostIdentity.Resolved first = HostIdentity.resolve(sources(dir));
        HostIdentity.Resolved second = HostIdentity.resolve(sources(dir));
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + DMI, first.identity().hostNqn().value());
        assertEquals(UUID.fromString(DMI), first.identity().hostId());
        assertEquals(first, second, "a second command is the same host");
        assertFalse(first.generated());
        assertNull(first.notice());
    }

    @Test
    void aHostidFileAloneNamesTheHostnqnToo(@TempDir Path dir) throws Exception {
        Files.writeString(etc(dir).resolve("hostid"), "5b8f0f7e-2f43-4d6b-9b3a-0123456789ab\n");
        Files.writeString(dir.resolve("product_uuid"), DMI + "\n");
        HostIdentity id = HostIdentity.resolve(sources(dir)).identity();
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:5b8f0f7e-2f43-4d6b-9b3a-0123456789ab", id.hostNqn().value());
    }

    @Test
    void aHostnqnWithoutUuidTakesItsHostidFromDmi(@TempDir Path dir) throws Exception {
        Files.writeString(etc(dir).resolve("hostnqn"), "nqn.2014-08.com.example:host1\n");
        Files.writeString(dir.resolve("product_uuid"), DMI + "\n");
        HostIdentity id = HostIdentity.resolve(sources(dir)).identity();
        assertEquals("nqn.2014-08.com.example:host1", id.hostNqn().value());
        assertEquals(UUID.fromString(DMI), id.hostId());
    }

    @Test
    void noFilesAndNoSystemUuidIsGeneratedAndSaysSo(@TempDir Path dir) throws Exception {
        HostIdentity.Resolved r = HostIdentity.resolve(sources(dir));
        assertTrue(r.generated());
        assertTrue(r.identity().hostNqn().value().startsWith("nqn.2014-08.org.nvmexpress:uuid:"));
        assertEquals(r.identity().hostNqn().uuid().orElseThrow(), r.identity().hostId());
        assertTrue(r.notice().startsWith("warning: using auto generated hostid and hostnqn"), r.notice());
        assertTrue(r.notice().contains("nvmf4j gen-hostnqn"), r.notice());
        assertNotEquals(r.identity(), HostIdentity.resolve(sources(dir)).identity());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "nothing is written");
        }
    }

    @Test
    void aProductUuidThatIsNotExactlyAUuidOrAllZerosIsNoIdentity(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("product_uuid");
        Files.writeString(p, "Not Settable\n");
        assertTrue(HostIdentity.systemUuid(p).isEmpty());
        Files.writeString(p, "00000000-0000-0000-0000-000000000000\n");
        assertTrue(HostIdentity.systemUuid(p).isEmpty());
        Files.writeString(p, DMI + "-extra\n");
        assertTrue(HostIdentity.systemUuid(p).isEmpty());
        assertTrue(HostIdentity.resolve(sources(dir)).generated());
    }

    @Test
    void libnvmeEnvironmentVariablesWinOverTheFiles(@TempDir Path dir) throws Exception {
        Files.writeString(etc(dir).resolve("hostnqn"), "nqn.2014-08.com.example:from-file\n");
        Map<String, String> env = Map.of("LIBNVME_HOSTNQN", "nqn.2014-08.com.example:from-env",
                "LIBNVME_HOSTID", "5b8f0f7e-2f43-4d6b-9b3a-0123456789ab");
        HostIdentity id = HostIdentity.resolve(new HostIdentity.Sources(dir.resolve("etc-nvme"), null, env::get))
                .identity();
        assertEquals("nqn.2014-08.com.example:from-env", id.hostNqn().value());
        assertEquals(UUID.fromString("5b8f0f7e-2f43-4d6b-9b3a-0123456789ab"), id.hostId());
    }

    @Test
    void genAndShowHostnqnFollowNvmeCli(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("product_uuid"), DMI + "\n");
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + DMI, HostIdentity.generateHostNqn(sources(dir)).value());
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:" + DMI, HostIdentity.showHostNqn(sources(dir)).value(),
                "no hostnqn file: what gen-hostnqn would print");
        Files.writeString(etc(dir).resolve("hostnqn"), "testhost\n");
        assertEquals("testhost", HostIdentity.showHostNqn(sources(dir)).value());
    }

    @Test
    void aHostnqnFileLinuxCouldNotUseIsNamedInTheError(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("hostnqn"), "n".repeat(300) + "\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HostIdentity.load(dir));
        assertTrue(e.getMessage().startsWith(dir.resolve("hostnqn") + ": "), e.getMessage());
        assertTrue(e.getMessage().endsWith("300 bytes of UTF-8, more than 223"), e.getMessage());
    }

    @Test
    void aHostidFileThatIsNotAUuidIsNamedInTheError(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("hostid"), "1-2-3-4-5\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HostIdentity.load(dir));
        assertEquals(dir.resolve("hostid") + ": not a UUID: \"1-2-3-4-5\"", e.getMessage());
    }
}
