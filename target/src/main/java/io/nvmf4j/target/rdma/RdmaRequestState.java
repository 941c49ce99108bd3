package io.nvmf4j.target.rdma;

/**
 * Where one command is on its way through the RDMA transport: SPDK's {@code enum spdk_nvmf_rdma_request_state}
 * (lib/nvmf/rdma.c), reduced to the states this binding passes through. {@link RdmaQueue#process} drives a request
 * through them the way SPDK's {@code nvmf_rdma_request_process()} does: an event (capsule received, buffer
 * assigned, RDMA Read done, response queued by the core, Send done) moves the request into a state, and
 * {@code process} runs it on until it reaches a state that waits for the next event. Every transition is checked
 * against {@link #canMoveTo} (an unlisted one is a bug in the transport, thrown as {@link IllegalStateException})
 * and traced at {@code TRACE} level of the logger {@code io.nvmf4j.target.rdma.RdmaRequest} when
 * {@link RdmaTransportOptions#trace()} is on.
 *
 * <pre>
 * FREE -> NEW -> (NEED_BUFFER -> HAVE_BUFFER) -> (TRANSFERRING_HOST_TO_CONTROLLER) -> READY_TO_EXECUTE -> EXECUTING
 *      -> EXECUTED -> (TRANSFERRING_CONTROLLER_TO_HOST | COMPLETING) -> COMPLETED -> FREE
 * </pre>
 *
 * A command that fails before it runs (bad SGL, refused Connect, RDMA Read not posted) jumps to {@code EXECUTED}
 * with its error status, as SPDK's jumps to {@code READY_TO_COMPLETE}; a request whose connection ends goes to
 * {@code FREE} from wherever it is (SPDK forces {@code COMPLETED} for a qpair in error, then frees).
 */
enum RdmaRequestState {
    /** In the queue's free list; a received capsule moves it to {@link #NEW}. Waits. */
    FREE,
    /** A command capsule arrived: the core prepares it, the SGL is mapped and checked. */
    NEW,
    /** Waiting for a registered data buffer (the poll group's pool or the queue's share is exhausted). Waits. */
    NEED_BUFFER,
    /** The pool handed over a buffer: fetch the host's data, or run the command. */
    HAVE_BUFFER,
    /** The host's data is being fetched by RDMA Read. Waits for the Read completion. */
    TRANSFERRING_HOST_TO_CONTROLLER,
    /** All data is in place; the command may run. */
    READY_TO_EXECUTE,
    /** The core runs the command (an Asynchronous Event Request stays here until an event). Waits. */
    EXECUTING,
    /** The core completed the command; the response is about to go out. */
    EXECUTED,
    /** Read data goes to the host by RDMA Write, chained before the response Send. Waits for the Send completion. */
    TRANSFERRING_CONTROLLER_TO_HOST,
    /** The response Send is posted. Waits for its completion. */
    COMPLETING,
    /** The Send completed; resources are being returned. */
    COMPLETED;

    /** Bit {@code s.ordinal()} set: {@code this -> s} is a transition. Filled once; read without allocating. */
    @SuppressWarnings("ImmutableEnumChecker") // set only by the static initializer (the constants name each other)
    private long successors;

    static {
        allow(FREE, NEW);
        // a failed check answers at once: the core's completion brings the request to EXECUTED
        allow(NEW, NEED_BUFFER, READY_TO_EXECUTE, EXECUTED, FREE);
        allow(NEED_BUFFER, HAVE_BUFFER, FREE);
        allow(HAVE_BUFFER, TRANSFERRING_HOST_TO_CONTROLLER, READY_TO_EXECUTE, FREE);
        // the Read not posted: DATA_XFER_ERROR status; the Read failed or the queue ends: freed
        allow(TRANSFERRING_HOST_TO_CONTROLLER, READY_TO_EXECUTE, EXECUTED, FREE);
        allow(READY_TO_EXECUTE, EXECUTING, FREE);
        allow(EXECUTING, EXECUTED, FREE);
        // the queue ended or its receive could not be posted again: freed without a response
        allow(EXECUTED, TRANSFERRING_CONTROLLER_TO_HOST, COMPLETING, FREE);
        allow(TRANSFERRING_CONTROLLER_TO_HOST, COMPLETED, FREE);
        allow(COMPLETING, COMPLETED, FREE);
        allow(COMPLETED, FREE);
    }

    private static void allow(RdmaRequestState from, RdmaRequestState... to) {
        for (RdmaRequestState s : to) {
            from.successors |= 1L << s.ordinal();
        }
    }

    /** True when a request may go from this state to {@code next}. */
    public boolean canMoveTo(RdmaRequestState next) {
        return (successors & (1L << next.ordinal())) != 0;
    }

    /**
     * True for the states a request leaves only on an outside event (a completion, a buffer, the core's response):
     * {@link RdmaQueue#process} stops there.
     */
    public boolean waitsForEvent() {
        return switch (this) {
            case FREE, NEED_BUFFER, TRANSFERRING_HOST_TO_CONTROLLER, EXECUTING, TRANSFERRING_CONTROLLER_TO_HOST,
                 COMPLETING -> true;
            default -> false;
        };
    }

    /** {@code from -> to}, or an {@link IllegalStateException}: a transition outside the table is a transport bug. */
    static void checkTransition(RdmaRequestState from, RdmaRequestState to, Object who) {
        if (!from.canMoveTo(to)) {
            throw new IllegalStateException(who + ": illegal request state transition " + from + " -> " + to);
        }
    }
}
