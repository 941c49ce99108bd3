package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.io.DsmRange;
import io.nvmf4j.target.backend.AsyncBackend;
import io.nvmf4j.target.backend.BackendException;
import io.nvmf4j.target.backend.BackendIo;
import io.nvmf4j.target.backend.BackendOp;
import io.nvmf4j.target.backend.NamespaceBackend;
import io.nvmf4j.target.backend.RamBackend;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The asynchronous half of the I/O commands: {@link IoCommands} has checked the command; here it goes to the
 * backend, the request {@linkplain ExecutionState#WAITING_FOR_BACKEND waits for it}, and {@link #completed} finishes it when the backend is done, on the
 * queue's own thread (nvmet's {@code nvmet_bio_done()} / {@code nvmet_file_io_done()}, SPDK's
 * {@code nvmf_bdev_ctrlr_complete_cmd()}). Commands of several operations (Write Zeroes with FUA: zero then flush;
 * Dataset Management: one deallocate per range) take their next step from the completion of the last.
 */
final class BackendCommands {

    private static final int ETIMEDOUT = 110;

    private BackendCommands() {
    }

    /**
     * The poll group's backend I/O when {@code req}'s namespace can use it for {@code bytes}, else null (run
     * synchronously): a file or block device always; a RAM namespace for more than one piece
     * ({@link BackendIo#copy}), so that a large copy does not hold the poll thread in one call.
     */
    static BackendIo ioFor(Request req, long bytes) {
        NamespaceBackend backend = req.ns.backend();
        if (!(backend instanceof AsyncBackend)
                && !(backend instanceof RamBackend && Long.compareUnsigned(bytes, BackendIo.copyPieceBytes()) > 0)) {
            return null;
        }
        return req.sq.transport().backendIo();
    }

    /** Starts {@code op} for {@code req}, which waits for it; null: the command completes later. */
    static Status submit(BackendIo io, Request req, BackendOp op, long offset, long length, MemorySegment buffer) {
        req.backendOp = op;
        req.waitFor(ExecutionState.WAITING_FOR_BACKEND);
        if (req.ns.backend() instanceof RamBackend ram) {
            io.copy(ram, op, offset, length, buffer, req);
        } else {
            io.submit((AsyncBackend) req.ns.backend(), op, offset, length, buffer, req);
        }
        return null;
    }

    /** Deallocates {@code ranges} one after the other (already checked against the namespace). */
    static Status deallocate(BackendIo io, Request req, List<DsmRange> ranges) {
        if (ranges.isEmpty()) {
            return Status.SUCCESS;
        }
        req.backendSteps = ranges;
        req.backendStep = 0;
        return submitRange(io, req, ranges.get(0));
    }

    private static Status submitRange(BackendIo io, Request req, DsmRange range) {
        int bs = req.ns.backend().blockSize();
        req.errorLba(range.startingLba());
        return submit(io, req, BackendOp.DEALLOCATE, range.startingLba() * bs, range.lengthInBlocks() * bs, null);
    }

    /** A backend operation of {@code req} ended with {@code result} (bytes, or -errno). */
    static void completed(Request req, int result) {
        BackendOp op = req.backendOp;
        req.backendOp = null;
        if (op == null) {
            return; // the command was already answered
        }
        if (result < 0) {
            req.sq.complete(req, failure(req, op, result));
            return;
        }
        switch (op) {
            case READ -> req.ns.statistics().recordRead(req.transferLength());
            case WRITE, WRITE_FUA -> req.ns.statistics().recordWrite(req.transferLength());
            case WRITE_ZEROES -> {
                if (req.fua && req.ns.backend() instanceof AsyncBackend) {
                    // Write Zeroes with FUA: the zeroes are stable before the completion (as the synchronous path;
                    // a RAM namespace has no cache to flush)
                    submit(req.sq.transport().backendIo(), req, BackendOp.FLUSH, 0, 0, null);
                    return;
                }
            }
            case DEALLOCATE -> {
                @SuppressWarnings("unchecked")
                List<DsmRange> ranges = (List<DsmRange>) req.backendSteps;
                int next = req.backendStep + 1;
                if (ranges != null && next < ranges.size()) {
                    req.backendStep = next;
                    submitRange(req.sq.transport().backendIo(), req, ranges.get(next));
                    return;
                }
            }
            case FLUSH -> { }
        }
        req.sq.complete(req, Status.SUCCESS);
    }

    /**
     * errno_to_nvme_status() for the asynchronous path; a backend that did not answer within the timeout gives
     * Command Interrupted (retryable, no DNR: the host may try again, or elsewhere).
     */
    private static Status failure(Request req, BackendOp op, int result) {
        if (result == -ETIMEDOUT) {
            req.errorLocation(io.nvmf4j.protocol.SubmissionQueueEntry.OFFSET_OPCODE);
            return StatusCode.CMD_INTERRUPTED.status();
        }
        int errno = -result;
        long lba = op == BackendOp.DEALLOCATE || op == BackendOp.FLUSH ? req.errorLba() : req.slba;
        return IoCommands.backendFailure(req, BackendException.kindOfErrno(errno),
                op + " failed: errno " + errno, lba);
    }
}
