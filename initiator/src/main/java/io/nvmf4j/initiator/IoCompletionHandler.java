package io.nvmf4j.initiator;

/**
 * Completion handler of an {@link IoRequest}. Runs on the completion thread of the queue that carried the request
 * (or, when the request fails without reaching the wire, on the thread that found the failure): keep it short and
 * never block in it. Resubmitting the same request from here is the intended use: a submission made on the
 * completion thread goes straight to the wire, without any hand-off.
 */
@FunctionalInterface
public interface IoCompletionHandler {

    /**
     * @param request the request, no longer in flight: it may be changed and submitted again from here
     * @param error   null on success; else why the request failed ({@link NvmfStatusException} for an NVMe status)
     */
    void completed(IoRequest request, NvmfException error);
}
