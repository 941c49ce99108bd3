/**
 * Raw-socket tests of the softiwarp provider: a plain {@link java.net.Socket} plays the iWARP peer with bytes
 * built by hand from RFC 5044 (MPA, with RFC 6581 enhanced connection setup), RFC 5041 (DDP) and RFC 5040
 * (RDMAP), checked against written-out vectors (Linux siw's layouts, a request captured from Linux nvme-rdma,
 * RFC 3720 CRC32c examples) in {@link io.nvmf4j.verbs.wire.HandBuiltFrameVectorsTest}. Valid frames must be
 * placed exactly; each malformed frame must draw the Terminate that names its error, a closed stream, error
 * completions on the provider side and no write outside the addressed region.
 */
package io.nvmf4j.verbs.wire;
