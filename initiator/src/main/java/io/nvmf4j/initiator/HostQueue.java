package io.nvmf4j.initiator;

import io.nvmf4j.protocol.QueueId;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One NVMe queue of a controller as a transport carries it (Linux: {@code struct nvme_rdma_queue} behind a blk-mq
 * hardware context): it takes {@link NvmeRequest}s, puts their commands on the wire, matches completions to them
 * and reports their outcome. This package drives it; a {@link HostTransport} makes it. Not part of the API a
 * caller of the library uses.
 */
public interface HostQueue extends AutoCloseable {

    String name();

    QueueId qid();

    /** The 0's-based queue size: HSQSIZE of the connect request, to be sent as SQSIZE of the queue's Connect. */
    int sqsize();

    /** Enables in-capsule data up to {@code bytes} (IOCCSZ * 16 - 64), capped at what the queue can stage. */
    void inCapsuleCapacity(int bytes);

    /** The largest transfer of one request whose data is staged through the queue's own buffers. */
    int bufferSize();

    boolean isLive();

    /**
     * Connects the queue and starts its completion thread. Afterwards only {@link #submitInit} requests go out
     * until {@link #markLive()}.
     *
     * @throws NvmfConnectException refused, rejected or timed out
     */
    void connect(InetSocketAddress address, Duration timeout) throws NvmfConnectException;

    /** Lets queued requests go out: the queue's own Connect has succeeded. */
    void markLive();

    /**
     * Queues a request. It goes out at once when the queue is live and has a free slot, otherwise it waits; while
     * the connection is being re-established it waits for that.
     */
    void submit(NvmeRequest request);

    /** Sends a request of the connect sequence while the queue is connecting (fails it if the queue is down). */
    void submitInit(NvmeRequest request);

    /**
     * Asks that the calling thread poll this queue's completions itself in place of the queue's completion thread:
     * true once it does (see {@link QueuePolling}).
     */
    boolean claimPolling();

    /** On a thread holding the claim: handles the completions in now; their number, or -1 without the claim. */
    int pollClaimed();

    /** Gives the polling back to the queue's completion thread. */
    void releasePolling();

    /** On a thread holding the claim, about to sleep: see {@link QueuePolling#wakeOnCompletion}. */
    default long wakeOnCompletion(Runnable wake) {
        return 0;
    }

    /** See {@link QueuePolling#wakeOnCompletionWatching}. */
    default long wakeOnCompletionWatching(Runnable wake) {
        return wakeOnCompletion(wake);
    }

    /** See {@link QueuePolling#waitDescriptor}. */
    default int waitDescriptor() {
        return -1;
    }

    /** Disarms {@link #wakeOnCompletion} (see {@link QueuePolling#cancelWake}). */
    default void cancelWake() {
    }

    /** Holds the commands the calling thread submits until {@link #flushSends} (see {@link QueuePolling}). */
    default void holdSends() {
    }

    /** Sends what the calling thread submitted since {@link #holdSends}. */
    default void flushSends() {
    }

    /** Requests waiting for a slot or for the connection. */
    int pendingCount();

    /**
     * Tears the connection down (after a failure, before reconnecting): waits for the completion thread. Requests
     * waiting stay queued.
     */
    void disconnect();

    /** Fails every waiting request with {@code error} (ctrl-loss-tmo expired). */
    void failPending(NvmfException error);

    /** Disconnects, fails everything with a "closed" error and frees the queue's memory. Idempotent. */
    @Override
    void close();

    /** Why the connection last failed, or null. */
    String failureReason();
}
