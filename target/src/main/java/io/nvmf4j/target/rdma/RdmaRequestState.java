package io.nvmf4j.target.rdma;

/**
 * Where one command is on its way through the RDMA transport: SPDK's {@code enum spdk_nvmf_rdma_request_state}
 * (lib/nvmf/rdma.c), reduced to the states this binding passes through. Every transition is traced at
 * {@code TRACE} level of the logger {@code io.nvmf4j.target.rdma.RdmaRequest} when {@link RdmaTransportOptions#trace()}
 * is on.
 *
 * <pre>
 * FREE -> NEW -> (NEED_BUFFER) -> (TRANSFERRING_HOST_TO_CONTROLLER) -> READY_TO_EXECUTE -> EXECUTING -> EXECUTED
 *      -> (TRANSFERRING_CONTROLLER_TO_HOST) -> COMPLETING -> COMPLETED -> FREE
 * </pre>
 */
public enum RdmaRequestState {
    /** In the queue's free list. */
    FREE,
    /** A command capsule arrived and the core is parsing it. */
    NEW,
    /** Waiting for a registered data buffer (the poll group's pool is exhausted). */
    NEED_BUFFER,
    /** The host's data is being fetched by RDMA Read. */
    TRANSFERRING_HOST_TO_CONTROLLER,
    /** All data is in place; the command may run. */
    READY_TO_EXECUTE,
    /** The core runs the command (an Asynchronous Event Request stays here until an event). */
    EXECUTING,
    /** The core completed the command; the response is about to go out. */
    EXECUTED,
    /** Read data goes to the host by RDMA Write, chained before the response Send. */
    TRANSFERRING_CONTROLLER_TO_HOST,
    /** The response Send is posted. */
    COMPLETING,
    /** The Send completed; resources are being returned. */
    COMPLETED
}
