package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.ScatterGatherList;

/** A receive queue slot: a copy of a posted {@link ReceiveWorkRequest} (siw_rqe). */
final class ReceiveWqe {
    long wrId;
    int numSge;
    final long[] address;
    final int[] length;
    final int[] lkey;
    long totalLength;

    ReceiveWqe(int maxSge) {
        address = new long[maxSge];
        length = new int[maxSge];
        lkey = new int[maxSge];
    }

    void copyFrom(ReceiveWorkRequest wr) {
        wrId = wr.wrId();
        ScatterGatherList sgl = wr.sgList();
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
