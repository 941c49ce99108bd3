/**
 * softiwarp: a pure-Java iWARP provider over TCP, wire-compatible with Linux {@code siw}.
 *
 * <p>Layers, each in its own package: {@code mpa} (RFC 5044 MPA request/reply/reject frames, RFC 6581 enhanced
 * connection setup with the IRD/ORD words, CRC32c, and siw's negotiation rules in {@code MpaNegotiation}),
 * {@code ddp} (RFC 5041 tagged and untagged segment headers), {@code rdmap} (RFC 5040 opcodes, the Read Request
 * header, Terminate messages and codes). This package holds the verbs objects and the data path:
 * {@link io.nvmf4j.verbs.softiwarp.SoftiwarpQueuePair} (siw_qp.c / siw_verbs.c: state, work request posting,
 * queues) with its {@code QpCompletions} (siw_sqe_complete, siw_rqe_complete) and {@code QpClose}
 * (siw_qp_llp_close: Terminate, linger, orderly shutdown, flush); the {@code Transmitter} (siw_qp_tx.c) and {@code TerminateTx}
 * (siw_send_terminate); the {@code Receiver} (siw_qp_rx.c FPDU framing: siw_tcp_rx_data, siw_get_hdr,
 * siw_get_trailer) and {@code RdmapReceive} (siw_proc_send/write/rresp/rreq, DDP placement, siw_rdmap_complete);
 * the {@code ProgressEngine} thread(s) that serve incoming one-sided operations without the application, the
 * {@code StagTable} (24-bit index + 8-bit key STags) and the connection manager.
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
 * <li>FPDUs carry at most {@code nvmf4j.softiwarp.maxFpduPayload} (65472 bytes) of payload; siw uses the TCP
 *     MSS, which Java cannot read. Any FPDU up to the 16-bit MPA length is accepted.</li>
 * <li>{@code max_sge_rd} is 16 (siw: 1): a Read may scatter into several local buffers.</li>
 * <li>Data path allocation: none per operation in steady state (SteadyStateAllocationTest). Everything ready to
 *     send leaves in one gathering write: headers, pads, CRCs and payloads of at most
 *     {@code nvmf4j.softiwarp.copyThreshold} (4 KiB) are assembled in a per-QP direct buffer, larger payloads go
 *     out of the registered memory itself when the region was registered from a direct ByteBuffer
 *     ({@code ProtectionDomain.register(ByteBuffer, ...)}). JDK 25's gathering write allocates two objects per
 *     memory-segment-backed buffer (scope releasers in sun.nio.ch.IOUtil) and nothing for slices of a direct
 *     ByteBuffer, which has no scope (GatheringWriteAllocationTest), so a payload of a region registered from a
 *     memory segment is always copied. A work request whose payload went out of its own memory completes once
 *     the socket took it. The receive side reads what the socket has into a per-QP staging buffer (one read per
 *     small FPDU, or per several coalesced ones) and copies payload into the region; with an empty staging
 *     buffer and 8 KiB or more of payload due it reads straight into the registered memory, and while such
 *     FPDUs follow each other it reads only up to the next header between them, so their payloads all go in
 *     place.</li>
 * <li>STags: random 8-bit keys (an index reused gets a key it did not have before). Memory windows
 *     ({@code SoftiwarpMemoryWindow}) are STag-table entries of their own over a slice of a region registered
 *     with MW_BIND; bind and invalidate are synchronous and allocate nothing. A peer's Send with Invalidate ends
 *     only a window of the queue pair's domain: a region made by {@code register} is never remotely
 *     invalidatable (as IBA and rxe; siw would invalidate any region of the PD) - such an attempt is a Terminate
 *     that ends the sender's connection only.</li>
 * <li>Hostile peers: a listener holds at most {@code maxPendingPerListener} (128) connections without an MPA
 *     request, {@code maxPendingPerPeer} (16) per address - beyond either, the oldest is closed - and drops each
 *     after {@code mpaTimeout} (10 s); a valid request the application does not answer in that time is
 *     rejected. A Terminate never makes a thread wait for the peer: the engine tries on OP_WRITE for
 *     {@code terminateLinger} (500 ms). The Terminate is the last thing on the stream and the stream ends with a
 *     FIN behind it: the output is shut down, then the peer's further input is discarded (OP_READ, at most
 *     {@code terminateLinger} and 1 MiB) until it closes, then the socket closes - a close with unread input
 *     would be a TCP reset that throws away our queued Terminate. A Terminate is recorded before the work
 *     completion reporting its error is visible (siw_init_terminate), so an application that disconnects on
 *     that completion still sends it. An exception while serving one connection ends that
 *     connection only. Every such event is counted in {@link io.nvmf4j.verbs.softiwarp.RejectedPeers}
 *     ({@code SoftiwarpDevice.rejectedPeers()}) and logged once per connection, rate-limited, without a stack
 *     trace.</li>
 * </ul>
 */
package io.nvmf4j.verbs.softiwarp;
