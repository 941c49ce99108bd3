package io.nvmf4j.target.rdma;

import static io.nvmf4j.target.rdma.RdmaRequestState.*;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The transition table of SPDK's request state machine as this transport runs it (nvmf_rdma_request_process). */
class RdmaRequestStateTest {

    private static void walk(RdmaRequestState... path) {
        for (int i = 1; i < path.length; i++) {
            RdmaRequestState.checkTransition(path[i - 1], path[i], "path " + List.of(path));
        }
    }

    @Test
    void aWriteWithHostDataWalksReadExecuteSendAndFree() {
        walk(FREE, NEW, NEED_BUFFER, HAVE_BUFFER, TRANSFERRING_HOST_TO_CONTROLLER, READY_TO_EXECUTE, EXECUTING,
                EXECUTED, COMPLETING, COMPLETED, FREE);
    }

    @Test
    void aReadWalksBufferExecuteWriteAndSend() {
        walk(FREE, NEW, NEED_BUFFER, HAVE_BUFFER, READY_TO_EXECUTE, EXECUTING, EXECUTED,
                TRANSFERRING_CONTROLLER_TO_HOST, COMPLETED, FREE);
    }

    @Test
    void aCommandWithoutDataOrWithInCapsuleDataRunsAtOnce() {
        walk(FREE, NEW, READY_TO_EXECUTE, EXECUTING, EXECUTED, COMPLETING, COMPLETED, FREE);
    }

    @Test
    void aCommandRefusedWhileBeingParsedIsAnsweredWithoutRunning() {
        walk(FREE, NEW, EXECUTED, COMPLETING, COMPLETED, FREE);
    }

    @Test
    void aRequestOfAnEndingConnectionIsFreedFromAnyBusyState() {
        for (RdmaRequestState s : values()) {
            if (s != FREE) {
                assertTrue(s.canMoveTo(FREE), s + " -> FREE");
            }
        }
    }

    @Test
    void anIllegalTransitionIsCaughtAsABug() {
        // a response for a request that is already free (a double completion) or a Send before the command ran
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RdmaRequestState.checkTransition(FREE, EXECUTED, "request 3"));
        assertTrue(e.getMessage().contains("FREE -> EXECUTED"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> RdmaRequestState.checkTransition(NEW, COMPLETING, "r"));
        assertThrows(IllegalStateException.class, () -> RdmaRequestState.checkTransition(EXECUTING, EXECUTING, "r"));
        assertThrows(IllegalStateException.class,
                () -> RdmaRequestState.checkTransition(TRANSFERRING_HOST_TO_CONTROLLER, COMPLETED, "r"));
        assertFalse(FREE.canMoveTo(FREE));
    }

    @Test
    void aRequestContextRefusesAResponseForACommandThatNeverArrived() {
        // the real RdmaRequest.to(), as RdmaQueue.process calls it: checked before anything else is touched
        RdmaRequest r = new RdmaRequest(null, 0, Arena.ofAuto().allocate(16));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> r.to(EXECUTED));
        assertTrue(e.getMessage().contains("illegal request state transition FREE -> EXECUTED"), e.getMessage());
        assertTrue(r.state == FREE, "state unchanged: " + r.state);
    }

    @Test
    void processStopsExactlyAtTheStatesThatWaitForAnEvent() {
        for (RdmaRequestState s : values()) {
            // a state that does not wait must lead somewhere other than FREE, or process() would spin
            boolean leadsOn = false;
            for (RdmaRequestState t : values()) {
                leadsOn |= t != FREE && s.canMoveTo(t);
            }
            if (!s.waitsForEvent()) {
                assertTrue(leadsOn || s == COMPLETED, s + " neither waits nor leads on");
            }
        }
        assertTrue(EXECUTING.waitsForEvent(), "an AER parks in EXECUTING");
        assertFalse(NEW.waitsForEvent());
    }
}
