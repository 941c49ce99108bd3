package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ScatterGatherList;

/**
 * What a send and a receive queue slot share (siw_wqe / siw_rqe of Linux siw.h): the work request id and the copy
 * of its scatter/gather list (struct siw_sge), with the total length. Preallocated for the queue pair's SGE limit.
 */
abstract sealed class Wqe permits SendWqe, ReceiveWqe {
    long wrId;
    int numSge;
    final long[] address;
    final int[] length;
    final int[] lkey;
    long totalLength;

    Wqe(int maxSge) {
        address = new long[maxSge];
        length = new int[maxSge];
        lkey = new int[maxSge];
    }

    /** Copies the posted work request's id and SGEs into this slot (no allocation). */
    final void copySges(long wrId, ScatterGatherList sgl) {
        this.wrId = wrId;
        numSge = sgl.count();
        long total = 0;
        for (int i = 0; i < numSge; i++) {
            address[i] = sgl.get(i).address();
            length[i] = sgl.get(i).length();
            lkey[i] = sgl.get(i).lkey();
            total += Integer.toUnsignedLong(length[i]);
        }
        totalLength = total;
    }
}
