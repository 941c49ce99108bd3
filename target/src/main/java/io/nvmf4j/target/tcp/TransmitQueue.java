package io.nvmf4j.target.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The transmit side of one NVMe/TCP connection (nvmet-tcp's {@code nvmet_tcp_try_send()} over its
 * {@code resp_send_list}): the PDUs of its requests in the order they were queued (an R2T, or a C2HData header,
 * data, data digest and CapsuleResp), after a connection-level PDU (the ICResp, a C2HTermReq) if one waits. The
 * buffers of several requests go in one gathering write of up to {@link #GATHER} buffers (SPDK's sock layer
 * flushes its queued requests with one {@code writev} too), so a poll round that answered many commands costs one
 * system call, not one per command. A write takes what the socket takes and never blocks the poll thread: the rest waits
 * until the socket is writable again. Remembers since when the peer has taken nothing of what waits, for the
 * stall timeout. Poll-group thread
 * only; no allocation.
 */
final class TransmitQueue {

    /** The most buffers one write gathers (a read's response is at most four: header, data, digest, CapsuleResp). */
    static final int GATHER = 64;
    /**
     * Queued PDUs older than this count against a queue's memory bound ({@link #stalledBytes}): the RDMA
     * transport's {@code TransmitProgress} bound, the same 1 s.
     */
    static final long STALL_NANOS = 1_000_000_000L;

    private final TcpRequest[] ring;
    /** The buffers of the next gathering write, filled from the requests in order; reused. */
    private final ByteBuffer[] gather = new ByteBuffer[GATHER];
    private int head;
    private int size;
    private ByteBuffer control;
    /** System.nanoTime() since which bytes have waited without the socket taking all of them; 0 when none wait. */
    private long waitingSince;
    /** Bytes the socket has taken so far (the poll loop's measure of progress). */
    private long written;

    TransmitQueue(int capacity) {
        this.ring = new TcpRequest[capacity];
    }

    /** A connection-level PDU, sent before any request's (the ICResp, a C2HTermReq). */
    void control(ByteBuffer pdu, long now) {
        control = pdu;
        started(now);
    }

    void enqueue(TcpRequest r, long now) {
        if (size == ring.length) {
            throw new IllegalStateException("transmit queue full (" + size + ")");
        }
        ring[(head + size) % ring.length] = r;
        size++;
        r.txQueuedNanos = now;
        started(now);
    }

    /**
     * Pool bytes ({@link TcpRequest#quotaBytes}) held by requests whose PDUs were queued more than {@code
     * stallNanos} before {@code now} and have not all gone into the socket: what a peer that reads slowly keeps
     * from the pool. A peer that takes a few bytes now and then never looks stalled to {@link #waitingSince}, so
     * this is the bound that ends it. Housekeeping only: walks the queue.
     */
    long stalledBytes(long now, long stallNanos) {
        long bytes = 0;
        for (int i = 0, at = head; i < size; i++, at = (at + 1) % ring.length) {
            TcpRequest r = ring[at];
            if (now - r.txQueuedNanos > stallNanos) {
                bytes += r.quotaBytes;
            }
        }
        return bytes;
    }

    private void started(long now) {
        if (waitingSince == 0) {
            waitingSince = now == 0 ? 1 : now;
        }
    }

    boolean isEmpty() {
        return size == 0 && control == null;
    }

    long waitingSince() {
        return waitingSince;
    }

    long written() {
        return written;
    }

    /**
     * Writes what the socket takes; each request whose bytes all went out is handed to {@code sent}. Returns true
     * when everything queued went out.
     */
    boolean flush(SocketChannel channel, TcpQueue sent) throws IOException {
        if (control != null) {
            int n = channel.write(control);
            written += n;
            if (n > 0 && control.hasRemaining()) {
                waitingSince = System.nanoTime();
            }
            if (control.hasRemaining()) {
                return false;
            }
            control = null;
        }
        while (size > 0 && !sent.closing()) {
            int count = 0;
            for (int i = 0, at = head; i < size; i++, at = (at + 1) % ring.length) {
                TcpRequest r = ring[at];
                if (count + r.txCount > GATHER) {
                    break;
                }
                System.arraycopy(r.tx, 0, gather, count, r.txCount);
                count += r.txCount;
            }
            long n = channel.write(gather, 0, count);
            written += n;
            while (size > 0 && ring[head].txDone()) {
                TcpRequest r = ring[head];
                ring[head] = null;
                head = (head + 1) % ring.length;
                size--;
                sent.sent(r);
            }
            if (size > 0 && !ring[head].txDone()) { // the socket did not take all: it is full
                if (n > 0) {
                    waitingSince = System.nanoTime(); // the peer takes bytes: not stalled
                }
                return false;
            }
        }
        if (size == 0 && control == null) {
            waitingSince = 0;
            return true;
        }
        return false;
    }
}
