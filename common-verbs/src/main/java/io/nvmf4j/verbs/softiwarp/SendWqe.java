package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ScatterGatherList;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;

/** A send queue slot: a copy of a posted {@link SendWorkRequest} plus its transmit progress (siw_wqe). */
final class SendWqe {
    long wrId;
    SendOpcode opcode;
    boolean signaled;
    boolean solicited;
    int numSge;
    final long[] address;
    final int[] length;
    final int[] lkey;
    long remoteAddress;
    int rkey;
    int invalidateRkey;
    long totalLength;
    /** Bytes already sent (or, for a Read, received). */
    long processed;
    /** Local regions resolved when transmission (or Read placement) starts. */
    final SoftiwarpMemoryRegion[] regions;
    /** Outcome, valid once {@link #finished}. */
    io.nvmf4j.verbs.WcStatus completionStatus;
    int completionLength;
    int completionVendorError;
    /** Set once the operation ended (successfully or not); its completion is reported in queue order. */
    volatile boolean finished;
    /** Set once its completion was reported (retired): the slot may be reused. */
    volatile boolean done;

    SendWqe(int maxSge) {
        address = new long[maxSge];
        length = new int[maxSge];
        lkey = new int[maxSge];
        regions = new SoftiwarpMemoryRegion[maxSge];
    }

    void copyFrom(SendWorkRequest wr) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        signaled = wr.signaled();
        solicited = wr.solicited();
        ScatterGatherList sgl = wr.sgList();
        numSge = sgl.count();
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            address[i] = sgl.get(i).address();
            length[i] = sgl.get(i).length();
            lkey[i] = sgl.get(i).lkey();
            total += Integer.toUnsignedLong(length[i]);
            regions[i] = null;
        }
        totalLength = total;
        remoteAddress = wr.remoteAddress();
        rkey = wr.rkey();
        invalidateRkey = wr.invalidateRkey();
        processed = 0;
        finished = false;
        done = false;
    }
}
