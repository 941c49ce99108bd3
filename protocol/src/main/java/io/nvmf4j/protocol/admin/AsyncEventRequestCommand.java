package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.SubmissionQueueEntry;

/**
 * Asynchronous Event Request (opcode 0Ch; NVMe Base 2.0, 5.2): no parameters; the controller holds it until an
 * event occurs and then completes it with the event in DW0 (see {@link AsyncEvent}). A host keeps up to AERL + 1
 * outstanding. Linux: {@code nvme_async_event_work()} / {@code nvmet_execute_async_event()}.
 */
public final class AsyncEventRequestCommand {

    private final SubmissionQueueEntry sqe;

    private AsyncEventRequestCommand(SubmissionQueueEntry sqe) {
        this.sqe = sqe;
    }

    public static AsyncEventRequestCommand wrap(SubmissionQueueEntry sqe) {
        return new AsyncEventRequestCommand(CommandViews.requireOpcode(sqe, AdminOpcode.ASYNC_EVENT_REQUEST));
    }

    public static AsyncEventRequestCommand create(SubmissionQueueEntry sqe) {
        return new AsyncEventRequestCommand(CommandViews.start(sqe, AdminOpcode.ASYNC_EVENT_REQUEST));
    }

    public SubmissionQueueEntry sqe() {
        return sqe;
    }

    @Override
    public String toString() {
        return "AsyncEventRequest[cid=" + sqe.cid() + "]";
    }
}
