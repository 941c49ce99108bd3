package io.nvmf4j.target.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A namespace held in off-heap memory of a fixed size (like a Linux {@code null_blk} with memory backing, or SPDK's
 * malloc bdev). Contents vanish on close. Write Zeroes and deallocate zero the range, so the namespace can promise
 * that deallocated blocks read as zeroes.
 */
public final class RamBackend implements NamespaceBackend {

    /** What Write Zeroes and Deallocate pieces copy from ({@link #copyPiece}: no slice allocated per piece). */
    private static final MemorySegment ZEROES = Arena.global().allocate(MemoryCopies.PIECE_BYTES);

    private final Arena arena;
    private final MemorySegment memory;
    private final int blockSize;

    private RamBackend(Arena arena, MemorySegment memory, int blockSize) {
        this.arena = arena;
        this.memory = memory;
        this.blockSize = blockSize;
    }

    /**
     * Allocates {@code sizeInBytes} (rounded down to whole blocks) zeroed bytes. The memory is zeroed, so all of it is
     * committed at once: a size beyond what the machine has free ({@code MemAvailable} of /proc/meminfo) is refused
     * before anything is allocated, as is a size the allocator refuses, each with an {@link IllegalArgumentException}
     * that names the size (a management request or a config must not take the daemon's memory, or its thread, with
     * an OutOfMemoryError).
     */
    @SuppressWarnings("MustBeClosedChecker") // the backend owns the arena and closes it in close(); closed here on failure
    public static RamBackend allocate(long sizeInBytes, int blockSize) {
        NamespaceBackend.requireBlockSize(blockSize);
        long bytes = sizeInBytes / blockSize * blockSize;
        if (bytes <= 0) {
            throw new IllegalArgumentException("RAM namespace of " + sizeInBytes + " bytes holds no " + blockSize
                    + "-byte block");
        }
        long available = MemoryInfo.availableBytes();
        if (available >= 0 && bytes > available) {
            throw new IllegalArgumentException("RAM namespace of " + MemoryInfo.human(bytes) + " (" + bytes
                    + " bytes) does not fit: " + MemoryInfo.human(available)
                    + " of memory available (MemAvailable in /proc/meminfo)");
        }
        Arena arena = Arena.ofShared();
        try {
            return new RamBackend(arena, arena.allocate(bytes, DescriptorIo.ALIGNMENT), blockSize);
        } catch (OutOfMemoryError e) {
            arena.close();
            throw new IllegalArgumentException("RAM namespace of " + MemoryInfo.human(bytes) + " (" + bytes
                    + " bytes): cannot allocate: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public long sizeInBytes() {
        return memory.byteSize();
    }

    @Override
    public boolean volatileWriteCache() {
        return false;
    }

    @Override
    public String description() {
        // what backs the namespace, like "file PATH"; its size is reported beside it (ctl list printed it twice)
        return "ram";
    }

    @Override
    public void read(long lba, MemorySegment destination) throws BackendException {
        checkRange(lba, blocksOf(destination.byteSize()));
        MemorySegment.copy(memory, lba * blockSize, destination, 0, destination.byteSize());
    }

    @Override
    public void write(long lba, MemorySegment source, boolean forceUnitAccess) throws BackendException {
        checkRange(lba, blocksOf(source.byteSize()));
        MemorySegment.copy(source, 0, memory, lba * blockSize, source.byteSize());
    }

    @Override
    public void flush() {
        // Nothing volatile in front of the memory itself.
    }

    @Override
    public void writeZeroes(long lba, long blocks) throws BackendException {
        checkRange(lba, blocks);
        memory.asSlice(lba * blockSize, blocks * blockSize).fill((byte) 0);
    }

    @Override
    public void deallocate(long lba, long blocks) throws BackendException {
        writeZeroes(lba, blocks);
    }

    /**
     * One piece of a transfer {@link MemoryCopies} moves across poll rounds: {@code bytes} at byte {@code offset} of
     * the namespace, to or from {@code buffer} at {@code bufferOffset} (Read, Write), or zeroed (Write Zeroes,
     * Deallocate; {@code bytes} at most {@link MemoryCopies#PIECE_BYTES}). The range was checked by the command.
     */
    void copyPiece(BackendOp op, long offset, MemorySegment buffer, long bufferOffset, long bytes) {
        switch (op) {
            case READ -> MemorySegment.copy(memory, offset, buffer, bufferOffset, bytes);
            case WRITE, WRITE_FUA -> MemorySegment.copy(buffer, bufferOffset, memory, offset, bytes);
            case WRITE_ZEROES, DEALLOCATE -> MemorySegment.copy(ZEROES, 0, memory, offset, bytes);
            case FLUSH -> throw new IllegalArgumentException("a RAM namespace has nothing to flush");
        }
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
