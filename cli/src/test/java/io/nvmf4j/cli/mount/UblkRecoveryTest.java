package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A ublk device keeps the namespace it serves in its {@code ublksrv_flags}: a recovering mount reads it back, and a
 * device some other server made (ublksrv, SPDK: other flags, or none) is not taken for one of ours.
 */
class UblkRecoveryTest {

    @Test
    void theNamespaceComesBackFromTheServerFlags() {
        assertEquals(1, UblkRecovery.nsid(UblkRecovery.serverFlags(1)));
        assertEquals(0xffff_fffeL, UblkRecovery.nsid(UblkRecovery.serverFlags(0xffff_fffeL)));
    }

    @Test
    void aDeviceAnotherServerMadeHasNoNamespaceOfOurs() {
        assertEquals(-1, UblkRecovery.nsid(0));
        assertEquals(-1, UblkRecovery.nsid(1));
        assertEquals(-1, UblkRecovery.nsid(0x6e76_6d67_0000_0001L), "one bit off the mark");
    }
}
