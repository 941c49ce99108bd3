package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.AsyncEventRequestCommand;
import io.nvmf4j.protocol.admin.KeepAliveCommand;
import io.nvmf4j.target.backend.RamBackend;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A command's state from its handler to its completion: answered at once, waiting for an event, and a handler
 * that gives no status without waiting for anything (a bug the host must not pay for with a hang).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExecutionStateTest {

    private final TargetFixture fx = new TargetFixture();
    private final LoopHost host = fx.host().connectAndEnable(SUBNQN);

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void aCommandAnsweredByItsHandlerIsCompleted() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        KeepAliveCommand.create(sqe);
        Request r = host.submit(host.admin, sqe);
        assertEquals(ExecutionState.COMPLETED, r.state());
    }

    @Test
    void anAsyncEventRequestWaitsForItsEventThenCompletes() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        AsyncEventRequestCommand.create(sqe);
        Request aer = host.submit(host.admin, sqe);
        assertEquals(ExecutionState.WAITING_FOR_EVENT, aer.state());
        assertTrue(aer.state().waiting());
        fx.subsystem.addNamespace(SubsystemNamespace.of(2, RamBackend.allocate(1 << 16, 512)));
        assertEquals(ExecutionState.COMPLETED, aer.state());
        assertEquals(0, aer.cqe().statusField());
    }

    @Test
    void aHandlerThatGivesNoStatusAndWaitsForNothingIsAnsweredInternalError() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        KeepAliveCommand.create(sqe);
        sqe.psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS).cid(0x4242);
        Request r = new Request().reset(sqe);
        assertTrue(host.admin.sq().prepare(r));
        r.prepared(req -> null, DataDirection.NONE, 0);
        host.admin.sq().execute(r);
        assertEquals(ExecutionState.COMPLETED, r.state());
        assertEquals(0x6006, r.cqe().statusField(), "Internal Error, DNR, More: logged with the opcode as location");
        assertTrue(host.admin.transport().responses.contains(r), "answered through the transport");
    }

    @Test
    void onlyWaitingStatesCanBeWaitedFor() {
        Request r = new Request();
        for (ExecutionState s : ExecutionState.values()) {
            if (s.waiting()) {
                r.waitFor(s);
                assertEquals(s, r.state());
            } else {
                ExecutionState state = s;
                assertThrows(IllegalArgumentException.class, () -> r.waitFor(state));
            }
        }
    }
}
