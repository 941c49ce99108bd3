package io.nvmf4j.initiator.tcp;

import io.nvmf4j.initiator.NvmeRequest;
import io.nvmf4j.initiator.NvmfControllerLostException;
import io.nvmf4j.initiator.NvmfException;
import java.util.ArrayDeque;
import java.util.List;

/**
 * What a TCP host queue does with its commands when the connection fails, as the RDMA queue's recovery: outstanding
 * commands go back to the head of the waiting list in tag order, at most {@link #MAX_RETRIES} times each
 * ({@code nvme_decide_disposition()}), and the connect sequence's own commands fail. Failures are collected under
 * the queue's lock and reported after it.
 */
final class TcpFailures {

    /** As {@code nvme_decide_disposition()}'s nvme_max_retries: sent again at most this often after a failure. */
    static final int MAX_RETRIES = 5;

    /** A request to fail, and with what, once the lock is released. */
    record Failure(NvmeRequest request, NvmfException error) {
    }

    private TcpFailures() {
    }

    /** Under the queue's lock: frees every tag; re-queues or fails each command it held, fails waiting init ones. */
    static void requeueOrFail(TcpRequestTable requests, ArrayDeque<NvmeRequest> pending, String reason,
            List<Failure> failures) {
        ArrayDeque<NvmeRequest> retry = new ArrayDeque<>();
        for (int tag = 0; tag < requests.size(); tag++) {
            TcpSlot s = requests.slot(tag);
            if (s.request != null) {
                NvmeRequest r = requests.release(s);
                if (r.retryAfterReconnect() && r.retries() < MAX_RETRIES) {
                    r.retries(r.retries() + 1);
                    retry.addLast(r);
                } else {
                    failures.add(new Failure(r, new NvmfControllerLostException(reason + "; " + r.describe()
                            + " failed" + (r.retryAfterReconnect() ? " (the connection failed under it "
                            + (MAX_RETRIES + 1) + " times)" : ""))));
                }
            }
        }
        for (var it = retry.descendingIterator(); it.hasNext(); ) {
            pending.addFirst(it.next());
        }
        for (var it = pending.iterator(); it.hasNext(); ) {
            NvmeRequest r = it.next();
            if (!r.retryAfterReconnect()) {
                it.remove();
                failures.add(new Failure(r, new NvmfControllerLostException(reason + "; " + r.describe()
                        + " failed")));
            }
        }
    }

    /** After the lock: tells each request. */
    static void fail(List<Failure> failures) {
        for (Failure f : failures) {
            f.request().failed(f.error());
        }
    }
}
