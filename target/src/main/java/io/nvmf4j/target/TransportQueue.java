package io.nvmf4j.target;

import io.nvmf4j.target.backend.BackendIo;

/**
 * What the core needs from a transport for one queue (one RDMA queue pair, one loopback channel): the per-queue
 * half of Linux's {@code struct nvmet_fabrics_ops}. The core never touches the fabric itself.
 *
 * <p>The transport creates a {@link SubmissionQueue} with {@link NvmeTarget#createQueue(Port, TransportQueue)},
 * feeds it {@link Request}s, and gets each one back through {@link #queueResponse(Request)}.
 */
public interface TransportQueue {

    /**
     * A request is complete: its {@link Request#cqe()} is filled in (CID, SQID, SQ head, status, result). For a
     * successful command with {@link Request#dataDirection()} {@link DataDirection#CONTROLLER_TO_HOST} the transport
     * first transfers {@link Request#data()} to the host (RDMA Write), then sends the CQE. If
     * {@link Request#disconnectAfterResponse()} is set (Disconnect command) the transport tears the queue down once
     * the response is sent.
     *
     * <p>Usually called on the thread that called {@link SubmissionQueue#execute(Request)} before that call
     * returns; but an Asynchronous Event Request completes later, on whichever thread raised the event (a
     * configuration change, a timer), so implementations must accept calls from any thread.
     * (nvmet_fabrics_ops.queue_response)
     */
    void queueResponse(Request request);

    /**
     * The controller this queue belongs to has failed (keep-alive timeout, subsystem removed, target shutting
     * down): close the connection. The transport then calls {@link SubmissionQueue#destroy()} as for any other
     * connection loss. Must not block on the queue's own thread. (nvmet_fabrics_ops.delete_ctrl, per queue)
     */
    void disconnect();

    /**
     * The local address the host reached this queue on, for the discovery log of a port bound to a wildcard
     * address (nvmet_fabrics_ops.disc_traddr); null to report the port's configured address.
     */
    default String localAddress() {
        return null;
    }

    /**
     * The peer's IP address (no port) as text, or null when the transport has none. The core requires an I/O
     * queue's Connect to come from the admin queue's address (an association belongs to one host).
     */
    default String remoteAddress() {
        return null;
    }

    /**
     * The queue ID the transport connection was set up for (the QID of the NVMe-oF RDMA-CM request private data),
     * or -1 when the transport carries none. A Connect naming another QID is refused.
     */
    default int connectionQid() {
        return -1;
    }

    /**
     * Runs {@code task} soon on the thread that owns this queue (the one that calls {@link SubmissionQueue#prepare}
     * and {@link SubmissionQueue#execute}); callable from any thread, never blocks. The core completes work done
     * elsewhere (DH-HMAC-CHAP steps on the target's authentication executor) through it, so a request's buffer is
     * only ever written by the queue's thread. A task handed over after the queue is gone may be dropped.
     * The default runs it at once on the caller, for a transport whose queue has no owning thread.
     */
    default void runOnQueueThread(Runnable task) {
        task.run();
    }

    /**
     * Finishing a command on this queue threw (a bug, or an observer that failed) outside any call of the transport's
     * own: end this connection only, logged once, as a failure inside the transport's loop would. The default
     * disconnects.
     */
    default void failed(RuntimeException e) {
        disconnect();
    }

    /**
     * The asynchronous backend I/O of the thread that owns this queue, or null: file and block-device commands then
     * run synchronously inside {@link SubmissionQueue#execute(Request)} (a transport without a polling thread, such
     * as the in-process loop of tests). With one, they complete later from {@link BackendIo#poll()} on that thread.
     */
    default BackendIo backendIo() {
        return null;
    }

    /**
     * A backend operation on {@code request}'s data timed out and was abandoned while the kernel or a worker may
     * still use the buffer: the transport answers the command now but must not reuse the buffer. Returns what gives
     * the buffer back, run (on the queue's thread) once the operation really ends; null when the transport keeps no
     * buffer of its own for the request.
     */
    default Runnable detachData(Request request) {
        return null;
    }
}
