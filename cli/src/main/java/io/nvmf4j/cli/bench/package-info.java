/**
 * A benchmark of the verbs providers against plain TCP sockets on the same machine, in the same run
 * ({@code bench/verbs.sh}): Send/Receive round trips, RDMA Write and RDMA Read bandwidth, and the
 * allocation per operation in steady state. A measurement tool, not a test: it asserts nothing.
 */
package io.nvmf4j.cli.bench;
