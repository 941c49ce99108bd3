package io.nvmf4j.cli.mount.ublk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What a user sees where ublk is missing (this host's kernel has no ublk_drv): a message that names the device and
 * says what to do, not a stack trace. The ublk server itself runs against the lab's 6.12 kernel
 * (interop/checks/48-ublk-ram-disk.sh).
 */
class UblkControlTest {

    @Test
    void withoutTheUblkModuleOpeningTheControlDeviceSaysToLoadIt() {
        assumeFalse(Files.exists(Path.of(UblkControl.CONTROL_DEVICE)), "this kernel has ublk_drv loaded");
        UblkException e = assertThrows(UblkException.class, UblkControl::open);
        assertEquals(2, e.errno());
        assertEquals("open /dev/ublk-control failed: ENOENT (is the ublk_drv module loaded? modprobe ublk_drv)",
                e.getMessage());
    }

    @Test
    void errnosReadAsTheirNames() {
        assertEquals("ADD_DEV of ublk device -1 failed: EINVAL", new UblkException("ADD_DEV of ublk device -1", 22)
                .getMessage());
        assertTrue(new UblkException("x", 1).getMessage().contains("need root"));
        assertEquals("x failed: errno 200", new UblkException("x", 200).getMessage());
    }
}
