package io.nvmf4j.target;

import java.util.concurrent.atomic.LongAdder;

/**
 * Per-namespace I/O counters for the SMART / Health Information log page (NVMe Base 2.0, 5.16.1.3): host read and
 * write commands and bytes moved. nvmet reads the same numbers from the block device's part_stat (ios, sectors);
 * we count them ourselves so file and RAM namespaces report real values too.
 */
public final class NamespaceStatistics {

    private final LongAdder readCommands = new LongAdder();
    private final LongAdder writeCommands = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();

    /** Zero counters; the target creates one per namespace. */
    NamespaceStatistics() {
    }

    void recordRead(long bytes) {
        readCommands.increment();
        bytesRead.add(bytes);
    }

    void recordWrite(long bytes) {
        writeCommands.increment();
        bytesWritten.add(bytes);
    }

    public long readCommands() {
        return readCommands.sum();
    }

    public long writeCommands() {
        return writeCommands.sum();
    }

    public long bytesRead() {
        return bytesRead.sum();
    }

    public long bytesWritten() {
        return bytesWritten.sum();
    }

    /**
     * Data Units as the SMART log counts them: thousands of 512-byte units, rounded up (a host that read one
     * sector has read one data unit; nvmet: {@code DIV_ROUND_UP(sectors, 1000)}).
     */
    public static long dataUnits(long bytes) {
        long sectors = (bytes + 511) / 512;
        return (sectors + 999) / 1000;
    }
}
