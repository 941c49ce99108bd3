package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.ReceiveWorkRequest;

/** A receive queue slot: a copy of a posted {@link ReceiveWorkRequest} (siw_rqe). */
final class ReceiveWqe extends Wqe {

    ReceiveWqe(int maxSge) {
        super(maxSge);
    }

    void copyFrom(ReceiveWorkRequest wr) {
        copySges(wr.wrId(), wr.sgList());
    }
}
