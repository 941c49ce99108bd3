package io.nvmf4j.target;

import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.log.ErrorLogEntry;
import java.lang.foreign.MemorySegment;

/**
 * The controller's Error Information log (NVMe Base 2.0, 5.16.1.2): a ring of {@value #SLOTS} 64-byte entries and
 * the running error count, filled by every failed command that named a parameter location (nvmet_set_error(),
 * NVMET_ERROR_LOG_SLOTS). Identify Controller ELPE reports {@code SLOTS - 1}; the SMART log's Number of Error
 * Information Log Entries is {@link #errorCount()}.
 */
public final class ErrorLog {

    public static final int SLOTS = 128;

    private final MemorySegment slots = MemorySegment.ofArray(new byte[SLOTS * ErrorLogEntry.SIZE]);
    private long errorCount;

    /** An empty log; the target creates one per controller. */
    ErrorLog() {
    }

    /** Records a failed command; the entry's status field carries the More bit, as the CQE will. */
    synchronized void record(int sqid, Request request, Status status) {
        errorCount++;
        ErrorLogEntry e = ErrorLogEntry.wrap(slots, (int) (errorCount % SLOTS));
        e.segment().fill((byte) 0);
        e.errorCount(errorCount)
                .sqid(sqid)
                .cid(request.sqe().cid())
                .statusField(status.withMore().toField())
                .parameterErrorLocation(request.errorLocation())
                .lba(request.errorLba())
                .nsid(request.sqe().nsid());
    }

    public synchronized long errorCount() {
        return errorCount;
    }

    /**
     * Copies whole entries, newest first, into {@code destination} as far as they fit (nvmet copies slot by slot
     * until the host's buffer is full); the rest of the buffer is zeroed.
     */
    synchronized void copyTo(MemorySegment destination) {
        destination.fill((byte) 0);
        int slot = (int) (errorCount % SLOTS);
        long offset = 0;
        for (int i = 0; i < SLOTS && offset + ErrorLogEntry.SIZE <= destination.byteSize(); i++) {
            MemorySegment.copy(slots, (long) slot * ErrorLogEntry.SIZE, destination, offset, ErrorLogEntry.SIZE);
            slot = slot == 0 ? SLOTS - 1 : slot - 1;
            offset += ErrorLogEntry.SIZE;
        }
    }
}
