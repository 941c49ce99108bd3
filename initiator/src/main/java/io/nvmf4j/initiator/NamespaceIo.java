package io.nvmf4j.initiator;

import io.nvmf4j.protocol.admin.IdentifyNamespace;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * The block I/O a namespace offers, whether over one path ({@link Namespace}) or several ({@link MultipathNamespace},
 * Linux's {@code nvme_ns_head} in front of its paths): what a consumer such as a file system mount needs without
 * caring how many controllers carry it.
 */
public interface NamespaceIo {

    long nsid();

    long blockSize();

    long capacityBytes();

    IdentifyNamespace identify();

    CompletableFuture<Void> readAsync(long slba, long blocks, MemorySegment destination);

    CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment source);

    CompletableFuture<Void> writeZeroesAsync(long slba, long blocks, boolean deallocate);

    CompletableFuture<Void> deallocateAsync(long slba, long blocks);

    CompletableFuture<Void> flushAsync();
}
