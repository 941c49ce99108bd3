package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;

/**
 * Executes one parsed command (nvmet's {@code req->execute}). Returns the NVMe status to complete the request
 * with, having set {@link Request#errorLocation(int)} to the offending field's offset when it fails, like nvmet's
 * {@code req->error_loc}; or {@link Request#DEFERRED} when the request completes later (an Asynchronous Event
 * Request). Never throws across the wire: {@link SubmissionQueue} turns an unexpected exception into Internal Error.
 */
@FunctionalInterface
public interface CommandHandler {

    Status execute(Request request);
}
