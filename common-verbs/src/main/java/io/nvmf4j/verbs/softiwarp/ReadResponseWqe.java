package io.nvmf4j.verbs.softiwarp;

/**
 * An inbound RDMA Read Request waiting to be answered (an IRQ entry, siw_init_rresp()): the peer's sink and our
 * source, taken from the Read Request header.
 */
final class ReadResponseWqe {
    int sinkStag;
    long sinkTo;
    int readSize;
    int sourceStag;
    long sourceTo;
    int msn;
    long processed;
    /** The region the bytes come from, and the STag entry that granted it (a window, or the region itself). */
    SoftiwarpMemoryRegion source;
    StagEntry sourceEntry;
}
