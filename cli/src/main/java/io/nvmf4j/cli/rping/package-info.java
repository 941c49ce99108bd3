/**
 * An rping-compatible client and server over the verbs API: the same wire exchange as rdma-core's
 * {@code librdmacm/examples/rping.c}, so that nvmf4j's providers can be checked against the Linux
 * kernel's RDMA devices (siw) and their user-space tools. One ping: the client Sends the address,
 * STag and length of its "start" buffer ({@link io.nvmf4j.cli.rping.RpingRdmaInfo}); the server
 * RDMA-Reads it and Sends a go-ahead; the client Sends its "rdma" (sink) buffer; the server
 * RDMA-Writes the data there and Sends a go-ahead. The data is rping's ASCII pattern
 * ({@link io.nvmf4j.cli.rping.RpingPattern}), so both sides can verify every byte.
 */
package io.nvmf4j.cli.rping;
