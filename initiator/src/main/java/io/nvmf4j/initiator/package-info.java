/**
 * The NVMe-oF host library: discovery, admin and I/O queues, controller enable and identify, an asynchronous per-namespace I/O API.
 */
package io.nvmf4j.initiator;
