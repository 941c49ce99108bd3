package io.nvmf4j.target;

/**
 * Where a command is from its handler to its completion: SPDK's {@code spdk_nvmf_rdma_request_state} from
 * {@code RDMA_REQUEST_STATE_EXECUTING} on, with the reason a command is not answered yet made explicit. A handler
 * that cannot answer at once moves its request into one of the waiting states and returns no status; the request
 * then completes from the event it waits for, on the queue's own thread.
 */
public enum ExecutionState {
    /** Received and parsed (or being parsed); its handler has not run. */
    PENDING,
    /** Its handler runs. */
    EXECUTING,
    /**
     * A backend operation runs (SPDK's EXECUTING with a bdev I/O outstanding, nvmet's bio or kiocb in flight): the
     * request's data buffer belongs to the backend until the operation ends.
     */
    WAITING_FOR_BACKEND,
    /** Held until an event occurs: an Asynchronous Event Request (nvmet's {@code async_event_cmds}). */
    WAITING_FOR_EVENT,
    /** A DH-HMAC-CHAP step runs on the authentication executor (nvmet's {@code nvmet_wq} work item). */
    WAITING_FOR_AUTHENTICATION,
    /** Completed: the CQE is filled and the transport has the request (SPDK's COMPLETED). */
    COMPLETED;

    /** True for the states of a request that waits for something outside its handler. */
    public boolean waiting() {
        return this == WAITING_FOR_BACKEND || this == WAITING_FOR_EVENT || this == WAITING_FOR_AUTHENTICATION;
    }
}
