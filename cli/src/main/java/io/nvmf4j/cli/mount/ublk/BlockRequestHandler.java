package io.nvmf4j.cli.mount.ublk;

import java.lang.foreign.MemorySegment;

/**
 * What serves a ublk device's requests: called on the queue's own thread with the request's operation
 * ({@code IoDescriptor.OP_*}), flags ({@code IoDescriptor.F_*}), byte offset and length, and the tag's buffer (a
 * write's data is in it; a read's goes into it). Returns the bytes moved for a read or write, 0 for the others, or
 * {@code -errno} (the block layer turns it into an I/O error for the request).
 */
@FunctionalInterface
public interface BlockRequestHandler {
    int serve(int op, int flags, long offset, long length, MemorySegment buffer);
}
