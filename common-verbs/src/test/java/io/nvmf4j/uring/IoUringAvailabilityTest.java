package io.nvmf4j.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

class IoUringAvailabilityTest {

    /**
     * Where the sysctl allows io_uring to everyone (0, or absent before Linux 6.6) a ring must be had: on this host,
     * and in CI on a Linux runner. Elsewhere (sysctl 1 or 2, not Linux) there is nothing to claim.
     */
    @Test
    void aRingCanBeHadWhereTheSysctlAllowsIt() {
        assumeTrue(System.getProperty("os.name", "").startsWith("Linux"), "io_uring is Linux only");
        assumeTrue(Availability.disabledSysctl() == 0,
                "kernel.io_uring_disabled is " + Availability.disabledSysctl() + " here");
        assertNull(IoUring.unavailableReason());
    }

    @Test
    void anExceptionNamesTheCallAndTheErrno() {
        IoUringException e = new IoUringException("io_uring_setup", 1);
        assertEquals("io_uring_setup: EPERM (Operation not permitted)", e.getMessage());
        assertEquals(1, e.errno());
        assertEquals("io_uring_enter: errno 4095", new IoUringException("io_uring_enter", 4095).getMessage());
    }
}
