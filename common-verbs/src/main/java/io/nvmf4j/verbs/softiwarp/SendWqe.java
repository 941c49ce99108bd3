package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcStatus;

import java.util.Arrays;

/** A send queue slot: a copy of a posted {@link SendWorkRequest} plus its transmit progress (siw_wqe). */
final class SendWqe extends Wqe {
    SendOpcode opcode;
    boolean signaled;
    boolean solicited;
    long remoteAddress;
    int rkey;
    int invalidateRkey;
    /** Bytes already sent (or, for a Read, received). */
    long processed;
    /** Local regions resolved when transmission (or Read placement) starts. */
    final SoftiwarpMemoryRegion[] regions;
    /** Outcome, valid once {@link #finished}. */
    WcStatus completionStatus;
    int completionLength;
    int completionVendorError;
    /** Set once the operation ended (successfully or not); its completion is reported in queue order. */
    volatile boolean finished;
    /** Set once its completion was reported (retired): the slot may be reused. */
    volatile boolean done;

    SendWqe(int maxSge) {
        super(maxSge);
        regions = new SoftiwarpMemoryRegion[maxSge];
    }

    void copyFrom(SendWorkRequest wr) {
        copySges(wr.wrId(), wr.sgList());
        Arrays.fill(regions, 0, numSge, null);
        opcode = wr.opcode();
        signaled = wr.signaled();
        solicited = wr.solicited();
        remoteAddress = wr.remoteAddress();
        rkey = wr.rkey();
        invalidateRkey = wr.invalidateRkey();
        processed = 0;
        finished = false;
        done = false;
    }
}
