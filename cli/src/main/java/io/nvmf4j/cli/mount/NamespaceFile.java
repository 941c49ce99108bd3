package io.nvmf4j.cli.mount;

import io.nvmf4j.initiator.NamespaceIo;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.cli.mount.ScratchPool.Scratch;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One namespace seen as a file of {@code blockCount * blockSize} bytes: byte ranges become logical block ranges.
 * Aligned ranges go straight to Read / Write / Write Zeroes / Dataset Management; a write with an unaligned edge
 * reads the edge blocks first and writes whole blocks back (read-modify-write, as the Linux page cache does for a
 * partial block of a block device).
 *
 * <p>Two unaligned writes into the same block would lose one of them if their read-modify-write cycles
 * overlapped, so the unaligned ones run one after another ({@link #rmwChain}); aligned writes stay parallel.
 */
final class NamespaceFile {

    private final String name;
    private final long ino;
    private final NamespaceIo namespace;
    private final long blockSize;
    private final long size;
    private final boolean deallocatedReadsZero;
    private final ScratchPool pool;
    private CompletableFuture<Void> rmwChain = CompletableFuture.completedFuture(null);

    NamespaceFile(String name, long ino, NamespaceIo namespace, ScratchPool pool) {
        this.pool = pool;
        this.name = name;
        this.ino = ino;
        this.namespace = namespace;
        this.blockSize = namespace.blockSize();
        this.size = namespace.capacityBytes();
        IdentifyNamespace id = namespace.identify();
        // NVM Command Set 4.1.5.1 (DLFEAT bits 2:0 = 001b): only then may a hole be made by Deallocate alone.
        this.deallocatedReadsZero = (id.dlfeat() & 0x7) == IdentifyNamespace.DLFEAT_READ_ZEROES;
    }

    String name() {
        return name;
    }

    long ino() {
        return ino;
    }

    long size() {
        return size;
    }

    long blockSize() {
        return blockSize;
    }

    NamespaceIo namespace() {
        return namespace;
    }

    /** Bytes read into a pooled buffer: close it once they have been used. */
    record Data(MemorySegment bytes, Scratch scratch) implements AutoCloseable {
        @Override
        public void close() {
            scratch.close();
        }
    }

    /** Releases {@code scratch} whatever the outcome, passing the outcome on. */
    private static <T> CompletableFuture<T> releasing(CompletableFuture<T> io, Scratch scratch) {
        return io.whenComplete((v, e) -> scratch.close());
    }

    /** Reads {@code length} bytes at {@code offset} (inside the file). */
    CompletableFuture<Data> read(long offset, long length) {
        long first = offset / blockSize;
        long end = (offset + length + blockSize - 1) / blockSize;
        Scratch blocks = pool.take((end - first) * blockSize);
        long skip = offset - first * blockSize;
        return namespace.readAsync(first, end - first, blocks.segment()).handle((v, e) -> {
            if (e != null) {
                blocks.close();
                throw e instanceof CompletionException c ? c : new CompletionException(e);
            }
            return new Data(blocks.segment().asSlice(skip, length), blocks);
        });
    }

    /** Writes {@code data} (owned by the caller until the future completes) at {@code offset}. */
    CompletableFuture<Void> write(long offset, MemorySegment data) {
        long length = data.byteSize();
        if (offset % blockSize == 0 && length % blockSize == 0) {
            return namespace.writeAsync(offset / blockSize, length / blockSize, data);
        }
        synchronized (this) {
            CompletableFuture<Void> next = rmwChain.handle((v, e) -> null)
                    .thenCompose(v -> readModifyWrite(offset, data));
            rmwChain = next;
            return next;
        }
    }

    private CompletableFuture<Void> readModifyWrite(long offset, MemorySegment data) {
        long length = data.byteSize();
        long first = offset / blockSize;
        long end = (offset + length + blockSize - 1) / blockSize;
        long count = end - first;
        Scratch scratch = pool.take(count * blockSize);
        MemorySegment blocks = scratch.segment();
        boolean headPartial = offset % blockSize != 0;
        boolean tailPartial = (offset + length) % blockSize != 0;
        CompletableFuture<Void> edges = CompletableFuture.completedFuture(null);
        if (headPartial || (tailPartial && count == 1)) {
            edges = namespace.readAsync(first, 1, blocks.asSlice(0, blockSize));
        }
        if (tailPartial && count > 1) {
            CompletableFuture<Void> tail = namespace.readAsync(end - 1, 1,
                    blocks.asSlice((count - 1) * blockSize, blockSize));
            edges = edges.thenCombine(tail, (a, b) -> null);
        }
        return releasing(edges.thenCompose(v -> {
            MemorySegment.copy(data, 0, blocks, offset - first * blockSize, length);
            return namespace.writeAsync(first, count, blocks);
        }), scratch);
    }

    /** Writes {@code length} zero bytes at {@code offset} through {@link #write} (an unaligned edge). */
    private CompletableFuture<Void> writeZeroBytes(long offset, long length) {
        Scratch zeros = pool.take(length);
        zeros.segment().fill((byte) 0);
        return releasing(write(offset, zeros.segment()), zeros);
    }

    /**
     * Zeroes {@code length} bytes at {@code offset}: whole blocks by one command (Deallocate when {@code hole} and
     * deallocated blocks read as zeroes, else Write Zeroes, with DEAC when {@code hole}), partial edge blocks by
     * read-modify-write.
     */
    CompletableFuture<Void> zero(long offset, long length, boolean hole) {
        long firstWhole = (offset + blockSize - 1) / blockSize;
        long endWhole = (offset + length) / blockSize;
        CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
        if (endWhole > firstWhole) {
            long n = endWhole - firstWhole;
            all = hole && deallocatedReadsZero ? namespace.deallocateAsync(firstWhole, n)
                    : namespace.writeZeroesAsync(firstWhole, n, hole);
        } else {
            endWhole = firstWhole = -1;
        }
        long headEnd = firstWhole >= 0 ? Math.min(firstWhole * blockSize, offset + length) : offset + length;
        if (headEnd > offset) {
            all = all.thenCombine(writeZeroBytes(offset, headEnd - offset), (a, b) -> null);
        }
        if (endWhole >= 0 && endWhole * blockSize < offset + length) {
            long tailAt = endWhole * blockSize;
            all = all.thenCombine(writeZeroBytes(tailAt, offset + length - tailAt), (a, b) -> null);
        }
        return all;
    }

    CompletableFuture<Void> flush() {
        return namespace.flushAsync();
    }
}
