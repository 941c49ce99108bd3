package io.nvmf4j.cli.perf;

import io.nvmf4j.initiator.MultipathNamespace;

/**
 * What every {@link PerfWorker} of one run shares (the options SPDK perf keeps in its {@code g_*} globals, and the
 * run's shared state), built once per run before the workers. A worker copies it into its own final fields, so the
 * per-I/O path reads and allocates nothing more than before.
 *
 * @param spec         the run as asked for on the command line
 * @param control      the phase the workers follow and the first failure
 * @param readLatency  where read completions record their latency
 * @param writeLatency where write completions record their latency
 * @param workers      how many workers (one per I/O queue) split the region
 * @param regionBlocks blocks of the namespace the run uses, from LBA 0
 * @param runId        this run's random stamp, in every verified block
 * @param multipath    with several paths, the namespace the I/O goes to instead of the worker's queue; else null
 */
record RunContext(PerfSpec spec, RunControl control, LatencyMeter readLatency, LatencyMeter writeLatency,
        int workers, long regionBlocks, long runId, MultipathNamespace multipath) {

    /** The seed of worker {@code index}'s offset generator: distinct per worker, different every run. */
    long seed(int index) {
        return runId * 31 + index + 1;
    }
}
