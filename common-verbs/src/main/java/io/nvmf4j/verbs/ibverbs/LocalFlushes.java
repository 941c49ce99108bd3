package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;

/**
 * Flush completions the provider makes itself, for work requests posted on a queue pair whose connection has
 * ended: verbs promise that such a request completes with {@code IBV_WC_WR_FLUSH_ERR}, but the kernel devices do
 * not keep the promise for user-space queue pairs. siw 6.1 accepts a post on a QP in ERROR and never completes it
 * (siw_post_send()/siw_post_receive() put it in the mmapped ring; siw_sq_flush_wr()/siw_rq_flush_wr() act for
 * kernel QPs only), rxe flushes a late receive only when something else runs its responder. A FIFO ring of
 * (wr_id, opcode, qp_num) under its own monitor, a leaf lock: posters add under their queue pair's lock, the
 * poller drains under the CQ's; it grows on this error path only.
 *
 * <p>Limit: the provider learns of the end from an event or a completion. A request posted after the device broke
 * the queue pair but before that news arrived went to the device, and siw never completes it.
 */
final class LocalFlushes {
    private static final WcOpcode[] OPCODES = WcOpcode.values();
    private long[] wrIds = new long[16];
    private int[] opcodes = new int[16];
    private int[] qpNums = new int[16];
    private int head;
    private volatile int size;

    /** A racy hint for the poll path (a flush added meanwhile is found by the next poll). */
    boolean isEmpty() {
        return size == 0;
    }

    synchronized void add(long wrId, WcOpcode opcode, int qpNum) {
        if (size == wrIds.length) {
            grow();
        }
        int at = (head + size) % wrIds.length;
        wrIds[at] = wrId;
        opcodes[at] = opcode.ordinal();
        qpNums[at] = qpNum;
        size++;
    }

    /** Moves up to {@code out.length - from} flushes into {@code out} from index {@code from}; returns how many. */
    synchronized int drainInto(WorkCompletion[] out, int from) {
        int n = 0;
        WcOpcode[] values = OPCODES;
        while (size > 0 && from + n < out.length) {
            out[from + n].set(wrIds[head], WcStatus.WR_FLUSH_ERR, values[opcodes[head]], 0, qpNums[head]);
            head = (head + 1) % wrIds.length;
            size--;
            n++;
        }
        return n;
    }

    private void grow() {
        int capacity = wrIds.length * 2;
        long[] w = new long[capacity];
        int[] o = new int[capacity];
        int[] q = new int[capacity];
        for (int i = 0; i < size; i++) {
            int from = (head + i) % wrIds.length;
            w[i] = wrIds[from];
            o[i] = opcodes[from];
            q[i] = qpNums[from];
        }
        wrIds = w;
        opcodes = o;
        qpNums = q;
        head = 0;
    }
}
