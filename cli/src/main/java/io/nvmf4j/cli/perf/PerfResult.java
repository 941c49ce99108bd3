package io.nvmf4j.cli.perf;

/**
 * What one perf run measured.
 *
 * @param spec            what was asked
 * @param label           a name for the run (tables and report legends)
 * @param queues          I/O queues actually used (the controller may grant fewer)
 * @param blockSize       LBA size of the namespace
 * @param seconds         length of the measured window
 * @param read            read statistics (zero I/Os when the workload has none)
 * @param write           write statistics
 * @param totalIops       all I/Os per second
 * @param totalMibps      all bytes, MiB per second
 * @param totalAverageUs  mean latency over all I/Os
 * @param verifiedBlocks  blocks read back and found exactly as written ({@code --verify})
 * @param iopsPerSecond   IOPS in each second of the measured window, for the report
 */
public record PerfResult(PerfSpec spec, String label, int queues, long blockSize, double seconds, OpResult read,
        OpResult write, double totalIops, double totalMibps, double totalAverageUs, long verifiedBlocks,
        double[] iopsPerSecond) {

    /** One direction's numbers. */
    public record OpResult(long ios, long bytes, double iops, double mibps, LatencyStats latency) {

        static OpResult of(long ios, long bytes, double seconds, LatencyStats latency) {
            return new OpResult(ios, bytes, seconds > 0 ? ios / seconds : 0,
                    seconds > 0 ? bytes / seconds / (1024.0 * 1024.0) : 0, latency);
        }
    }
}
