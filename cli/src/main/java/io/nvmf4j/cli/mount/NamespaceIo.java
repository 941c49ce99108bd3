package io.nvmf4j.cli.mount;

import io.nvmf4j.initiator.MultipathNamespace;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * The I/O a mounted namespace file needs, over one path ({@link Namespace}) or several ({@link MultipathNamespace},
 * when {@code mount} is given a list of addresses).
 */
interface NamespaceIo {

    long nsid();

    long blockSize();

    long capacityBytes();

    IdentifyNamespace identify();

    CompletableFuture<Void> readAsync(long slba, long blocks, MemorySegment destination);

    CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment source);

    CompletableFuture<Void> writeZeroesAsync(long slba, long blocks, boolean deallocate);

    CompletableFuture<Void> deallocateAsync(long slba, long blocks);

    CompletableFuture<Void> flushAsync();

    static NamespaceIo of(Namespace ns) {
        return new NamespaceIo() {
            public long nsid() { return ns.nsid(); }
            public long blockSize() { return ns.blockSize(); }
            public long capacityBytes() { return ns.capacityBytes(); }
            public IdentifyNamespace identify() { return ns.identify(); }
            public CompletableFuture<Void> readAsync(long slba, long blocks, MemorySegment d) {
                return ns.readAsync(slba, blocks, d);
            }
            public CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment s) {
                return ns.writeAsync(slba, blocks, s);
            }
            public CompletableFuture<Void> writeZeroesAsync(long slba, long blocks, boolean deallocate) {
                return ns.writeZeroesAsync(slba, blocks, deallocate);
            }
            public CompletableFuture<Void> deallocateAsync(long slba, long blocks) {
                return ns.deallocateAsync(slba, blocks);
            }
            public CompletableFuture<Void> flushAsync() { return ns.flushAsync(); }
        };
    }

    static NamespaceIo of(MultipathNamespace ns) {
        return new NamespaceIo() {
            public long nsid() { return ns.nsid(); }
            public long blockSize() { return ns.blockSize(); }
            public long capacityBytes() { return ns.capacityBytes(); }
            public IdentifyNamespace identify() { return ns.identify(); }
            public CompletableFuture<Void> readAsync(long slba, long blocks, MemorySegment d) {
                return ns.readAsync(slba, blocks, d);
            }
            public CompletableFuture<Void> writeAsync(long slba, long blocks, MemorySegment s) {
                return ns.writeAsync(slba, blocks, s);
            }
            public CompletableFuture<Void> writeZeroesAsync(long slba, long blocks, boolean deallocate) {
                return ns.writeZeroesAsync(slba, blocks, deallocate);
            }
            public CompletableFuture<Void> deallocateAsync(long slba, long blocks) {
                return ns.deallocateAsync(slba, blocks);
            }
            public CompletableFuture<Void> flushAsync() { return ns.flushAsync(); }
        };
    }
}
