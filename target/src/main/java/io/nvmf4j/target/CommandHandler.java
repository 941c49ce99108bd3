package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;

/**
 * Executes one parsed command (nvmet's {@code req->execute}). Returns the NVMe status to complete the request
 * with, having set {@link Request#errorLocation(int)} to the offending field's offset when it fails, like nvmet's
 * {@code req->error_loc}; or null when it has put the request into a waiting {@link ExecutionState} (a backend
 * operation, an Asynchronous Event Request, an authentication step), whose end completes it later. Never throws
 * across the wire: {@link SubmissionQueue} turns an unexpected exception into Internal Error, and a null without a
 * waiting state too.
 */
@FunctionalInterface
public interface CommandHandler {

    Status execute(Request request);
}
