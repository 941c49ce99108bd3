/**
 * softiwarp: a pure-Java iWARP provider over TCP, wire-compatible with Linux {@code siw}.
 *
 * <p>Layers, each in its own package: {@code mpa} (RFC 5044 MPA request/reply/reject frames, RFC 6581 enhanced
 * connection setup with the IRD/ORD words, CRC32c, and siw's negotiation rules in {@code MpaNegotiation}),
 * {@code ddp} (RFC 5041 tagged and untagged segment headers), {@code rdmap} (RFC 5040 opcodes, the Read Request
 * header, Terminate messages and codes). This package holds the verbs objects and the data path:
 * {@link io.nvmf4j.verbs.softiwarp.SoftiwarpQueuePair} with its {@code Transmitter} (siw_qp_tx.c) and
 * {@code Receiver} (siw_qp_rx.c), the {@code ProgressEngine} thread(s) that serve incoming one-sided operations
 * without the application, the {@code StagTable} (24-bit index + 8-bit key STags) and the connection manager.
 *
 * <p>Behaviour worth knowing (mirrors siw unless said otherwise):
 * <ul>
 * <li>Defaults as siw's module parameters: MPA revision 2 with enhanced setup, CRC not required but honoured when
 *     the peer sets C, no markers (a request with M is answered with a reject), no peer-to-peer RTR unless
 *     {@code nvmf4j.softiwarp.peerToPeer=true} (then a zero-length RDMA Write RTR only); relaxed IRD/ORD
 *     negotiation. As responder we honour a peer's P2P request (Write RTR preferred, Read RTR answered).</li>
 * <li>Send and RDMA Write complete locally once handed to TCP (siw does the same: iWARP has no acknowledgement);
 *     RDMA Read completes when the last Read Response segment is placed. A remote protection error on a Write
 *     therefore reaches the requester as a Terminate: its connection ends with
 *     {@code DisconnectEvent.Cause.TERMINATE_RECEIVED} and later work requests flush; an outstanding Read
 *     completes with REM_ACCESS_ERR / REM_INV_REQ_ERR / REM_OP_ERR (vendor error = layer/type/code).</li>
 * <li>Completions of a send queue are not ordered across an outstanding Read (as siw).</li>
 * <li>FPDUs carry at most {@code nvmf4j.softiwarp.maxFpduPayload} (16 KiB) of payload; siw uses the TCP MSS, which
 *     Java cannot read. Any FPDU up to the 16-bit MPA length is accepted.</li>
 * <li>{@code max_sge_rd} is 16 (siw: 1): a Read may scatter into several local buffers.</li>
 * <li>Data path allocation: none in our code; the JDK allocates two small objects per memory-segment-backed
 *     buffer in a gathering write (scope releasers in sun.nio.ch.IOUtil).</li>
 * </ul>
 */
package io.nvmf4j.verbs.softiwarp;
