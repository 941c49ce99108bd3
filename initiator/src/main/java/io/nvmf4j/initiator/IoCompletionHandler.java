package io.nvmf4j.initiator;

/**
 * Completion handler of an {@link IoRequest}: keep it short and never block in it. Resubmitting the same request from
 * here is the intended use: a submission made on the completion thread goes straight to the wire, without any
 * hand-off.
 *
 * <p>Which thread runs it:
 * <ul>
 *   <li><b>success, or an NVMe status error</b> ({@link NvmfStatusException}): the completion thread of the queue that
 *       carried the request (named {@code nvmf4j-} and the queue);</li>
 *   <li><b>no response within the command timeout</b> ({@link NvmfTimeoutException}): that completion thread too,
 *       which checks deadlines between polls; the controller then reconnects;</li>
 *   <li><b>the connection breaks under it</b>: nothing at first, the request is sent again after the reconnect
 *       (at most five times, as Linux); when it fails for good ({@link NvmfControllerLostException}), on the thread
 *       that noticed the break: that completion thread (an error completion) or the RDMA provider's thread that
 *       reports the disconnect;</li>
 *   <li><b>no reconnect within ctrl-loss-tmo</b> ({@link NvmfControllerLostException}): the controller's thread,
 *       {@code nvmf4j-ctrl-<port>}, which also sends keep-alives and reconnects;</li>
 *   <li><b>the controller is closed</b> while the request waits for a slot or a reconnect: the thread that calls
 *       {@link NvmeController#close()};</li>
 *   <li><b>refused at submission</b> (the controller is closed, dead, or, for a multipath path, reconnecting): the
 *       submitting thread, inside {@link Namespace#submit(IoRequest)}, before it returns. A handler that resubmits
 *       after an error must therefore not assume it runs on a completion thread, and must not retry without a
 *       bound, or a closed controller turns it into a loop on the caller's stack.</li>
 * </ul>
 * The same holds for the futures of {@link Namespace}'s {@code *Async} methods and for {@link IoCallback}: they
 * complete, and run their dependent stages, on these threads.
 */
@FunctionalInterface
public interface IoCompletionHandler {

    /**
     * @param request the request, no longer in flight: it may be changed and submitted again from here
     * @param error   null on success; else why the request failed ({@link NvmfStatusException} for an NVMe status)
     */
    void completed(IoRequest request, NvmfException error);
}
