package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nvme-cli's files, in a temporary folder (never /etc). */
class HostIdentityTest {

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
    void nothingThereGeneratesAUuidHostnqnAndWritesNothing(@TempDir Path dir) throws Exception {
        HostIdentity id = HostIdentity.load(dir);
        assertTrue(id.hostNqn().value().startsWith("nqn.2014-08.org.nvmexpress:uuid:"));
        assertEquals(id.hostNqn().uuid().orElseThrow(), id.hostId());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void invalidHostnqnFileIsNamedInTheError(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("hostnqn"), "not-an-nqn\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HostIdentity.load(dir));
        assertTrue(e.getMessage().contains("hostnqn"), e.getMessage());
    }
}
