package io.nvmf4j.cli.mount.ublk;

import io.nvmf4j.uring.CompletionHandler;
import io.nvmf4j.uring.IoUring;
import io.nvmf4j.uring.IoUringException;
import io.nvmf4j.uring.SqeSize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * One ublk queue, run by one thread from start to end (the driver takes a queue's commands only from the task that
 * sent its first FETCH_REQ): its own ring, its descriptors mapped read-only from {@code /dev/ublkcN}, a buffer of
 * {@code max_io_buf_bytes} per tag. It sends FETCH_REQ for every tag, says so through {@link #fetched()}, then
 * answers each request that arrives as a completion with COMMIT_AND_FETCH_REQ carrying the handler's result, the
 * loop of ublksrv's {@code ublksrv_process_io} and SPDK's {@code ublk_poll}. It ends when every tag's fetch has
 * ended (UBLK_IO_RES_ABORT after STOP_DEV) or {@link #stop()} wakes it through an eventfd read kept on its ring.
 */
final class UblkQueue implements Runnable, CompletionHandler {
    private static final long STOP = -1L;

    private final int charFd;
    private final int queueId;
    private final int depth;
    private final int bufferBytes;
    private final BlockRequestHandler handler;
    private final int stopFd;
    private final CompletableFuture<Void> fetched = new CompletableFuture<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private IoUring ring;
    private MemorySegment descriptors;
    private MemorySegment buffers;
    private MemorySegment command;
    private boolean stopping;
    private int live;
    private long served;

    UblkQueue(int charFd, int queueId, int depth, int bufferBytes, BlockRequestHandler handler) throws UblkException {
        this.charFd = charFd;
        this.queueId = queueId;
        this.depth = depth;
        this.bufferBytes = bufferBytes;
        this.handler = handler;
        this.stopFd = UblkLinux.eventfd();
    }

    /** Completes once every tag's FETCH_REQ is with the driver (then START_DEV can end), or with what failed. */
    CompletableFuture<Void> fetched() {
        return fetched;
    }

    /** Completes when the thread has ended and released the ring, the mapping and the buffers. */
    CompletableFuture<Void> ended() {
        return ended;
    }

    /** Requests served so far (read by other threads for a summary; approximate while running). */
    long served() {
        return served;
    }

    /** Wakes the queue thread and ends it (any thread). */
    void stop() {
        UblkLinux.signal(stopFd);
    }

    @Override
    public void run() {
        long pageSize = UblkLinux.pageSize();
        try (Arena arena = Arena.ofConfined()) {
            descriptors = UblkLinux.mapReadOnly(arena, charFd, IoDescriptor.mapOffset(queueId, pageSize),
                    IoDescriptor.mapLength(depth, pageSize));
            buffers = arena.allocate((long) depth * bufferBytes, pageSize);
            command = arena.allocate(IoCommand.SIZE, 8);
            MemorySegment stopValue = arena.allocate(8, 8);
            try (IoUring r = IoUring.open(Integer.highestOneBit(2 * depth + 1), SqeSize.SQE128)) {
                ring = r;
                for (int tag = 0; tag < depth; tag++) {
                    send(UblkCommands.U_IO_FETCH_REQ, tag, 0);
                }
                ring.prepareRead(stopFd, stopValue, 0, STOP);
                ring.submit();
                live = depth;
                // a FETCH the driver refuses ends at once: its CQE is there now, before anyone waits on START_DEV
                ring.reap(this);
                if (live < depth) {
                    throw new UblkException("FETCH_REQ on queue " + queueId, 22);
                }
                fetched.complete(null);
                while (live > 0 && !stopping) {
                    if (ring.reap(this) == 0) {
                        ring.submitAndWait(1);
                    }
                }
            }
        } catch (UblkException e) {
            fetched.completeExceptionally(e);
        } catch (IoUringException e) {
            fetched.completeExceptionally(new UblkException("queue " + queueId + " io_uring (" + e.getMessage()
                    + ")", e.errno()));
        } catch (RuntimeException | Error e) {
            fetched.completeExceptionally(e);
            ended.completeExceptionally(e);
            throw e;
        } finally {
            UblkLinux.close(stopFd);
            ended.complete(null);
        }
    }

    @Override
    public void completed(long userData, int result, int flags) {
        if (userData == STOP) {
            stopping = true;
            return;
        }
        int tag = (int) userData;
        if (result != UblkCommands.IO_RES_OK) {
            live--; // UBLK_IO_RES_ABORT: the device is stopping; anything else: the driver refused the command
            return;
        }
        MemorySegment d = IoDescriptor.of(descriptors, tag);
        int op = IoDescriptor.op(d);
        long length = IoDescriptor.sectors(d) << 9;
        int answer;
        if (length > bufferBytes && (op == IoDescriptor.OP_READ || op == IoDescriptor.OP_WRITE)) {
            answer = -5; // EIO: larger than max_io_buf_bytes, which the driver should never send
        } else {
            answer = handler.serve(op, IoDescriptor.flags(d), IoDescriptor.startSector(d) << 9, length,
                    buffers.asSlice((long) tag * bufferBytes, Math.min(length, bufferBytes)));
        }
        served++;
        send(UblkCommands.U_IO_COMMIT_AND_FETCH_REQ, tag, answer);
    }

    private void send(int op, int tag, int result) {
        IoCommand.write(command, queueId, tag, result, buffers.address() + (long) tag * bufferBytes);
        if (!ring.prepareUringCmd(charFd, op, command, tag)) {
            // the ring holds two entries per tag: at most one command per tag and the stop read are outstanding
            throw new IllegalStateException("queue " + queueId + ": ring full");
        }
    }
}
