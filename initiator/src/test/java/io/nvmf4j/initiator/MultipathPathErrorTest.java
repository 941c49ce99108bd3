package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.log.AnaState;
import org.junit.jupiter.api.Test;

/**
 * Which failures fail over, as Linux nvme_is_path_error() ((status &amp; 0x700) == 0x300) and nvme_failover_req()
 * (NVME_SC_ANA_PERSISTENT_LOSS 0x301, NVME_SC_ANA_INACCESSIBLE 0x302, NVME_SC_ANA_TRANSITION 0x303 mark the path).
 */
class MultipathPathErrorTest {

    private static NvmfStatusException status(int field) {
        return new NvmfStatusException("Write nsid 1", Status.fromField(field), false);
    }

    @Test
    void anaStatusesImplyTheirStates() {
        assertEquals(AnaState.PERSISTENT_LOSS, MultipathNamespace.impliedState(Status.fromField(0x301)));
        assertEquals(AnaState.INACCESSIBLE, MultipathNamespace.impliedState(Status.fromField(0x302)));
        assertEquals(AnaState.CHANGE, MultipathNamespace.impliedState(Status.fromField(0x303)));
        assertNull(MultipathNamespace.impliedState(Status.fromField(0x300)), "internal path error: no ANA state");
        assertNull(MultipathNamespace.impliedState(Status.fromField(0x002)), "Invalid Field in Command");
    }

    @Test
    void pathErrorsFailOverOthersReachTheCaller() {
        assertTrue(MultipathNamespace.isPathError(status(0x302)));
        assertTrue(MultipathNamespace.isPathError(status(0x370)), "host pathing error");
        assertTrue(MultipathNamespace.isPathError(new NvmfControllerLostException("connection ended")));
        assertTrue(MultipathNamespace.isPathError(new NvmfTimeoutException("command timeout")));
        assertFalse(MultipathNamespace.isPathError(status(0x280)), "media error (sct 2h) is the caller's");
        assertFalse(MultipathNamespace.isPathError(status(0x083)), "reservation conflict is the caller's");
        assertFalse(MultipathNamespace.isPathError(status(0x4002)), "Invalid Field with DNR");
    }
}
