package io.nvmf4j.initiator.fake;

import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.io.DatasetManagementCommand;
import io.nvmf4j.protocol.io.DsmRange;
import io.nvmf4j.protocol.io.IoOpcode;
import java.lang.foreign.MemorySegment;

/**
 * How the {@link ScriptedController} answers I/O commands (Flush, Dataset Management, Read, Write, Write Zeroes)
 * against its one RAM namespace, the counterpart of nvmet_parse_io_cmd() with a RAM backend: the data moves through
 * the queue's buffer, a range past the namespace fails with LBA Out of Range.
 */
final class IoCommands {
    private final ScriptedController controller;
    private final ScriptedController.Script script;
    private final MemorySegment media;

    IoCommands(ScriptedController controller, MemorySegment media) {
        this.controller = controller;
        this.script = controller.script;
        this.media = media;
    }

    /** An I/O command; its data moves through {@code queue}. */
    Response io(SubmissionQueueEntry sqe, byte[] raw, byte[] inCapsule, ScriptedQueue queue) throws Exception {
        int opcode = sqe.opcode();
        long slba = sqe.getLong(40);
        int nlb = (sqe.cdw12() & 0xFFFF) + 1;
        long bytes = (long) nlb * script.blockSize;
        if (opcode == IoOpcode.FLUSH.code()) {
            return Response.ok(0);
        }
        if (opcode == IoOpcode.DATASET_MANAGEMENT.code()) {
            int ranges = (sqe.cdw10() & 0xFF) + 1;
            queue.fetch(raw, inCapsule, ranges * DsmRange.SIZE);
            controller.dsmRanges.add(queue.data.segment().asSlice(0, (long) ranges * DsmRange.SIZE)
                    .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            if ((sqe.cdw11() & DatasetManagementCommand.ATTR_AD) == 0) {
                return Response.ok(0); // IDR/IDW are hints: nothing to do (nvmet_bdev_execute_dsm())
            }
            for (int i = 0; i < ranges; i++) {
                DsmRange r = DsmRange.decode(queue.data.segment(), (long) i * DsmRange.SIZE);
                media.asSlice(r.startingLba() * script.blockSize, r.lengthInBlocks() * script.blockSize)
                        .fill((byte) 0);
            }
            return Response.ok(0);
        }
        if (slba + nlb > script.blocks) {
            return new Response(StatusCode.LBA_RANGE.withDnr(), 0, 0);
        }
        MemorySegment region = media.asSlice(slba * script.blockSize, bytes);
        if (opcode == IoOpcode.READ.code()) {
            MemorySegment.copy(region, 0, queue.data.segment(), 0, bytes);
            if (script.readDataThenInternalError) {
                return new Response(StatusCode.INTERNAL.withDnr(), 0, (int) bytes);
            }
            return Response.toHost((int) bytes);
        }
        if (opcode == IoOpcode.WRITE.code()) {
            queue.fetch(raw, inCapsule, (int) bytes);
            MemorySegment.copy(queue.data.segment(), 0, region, 0, bytes);
            return Response.ok(0);
        }
        if (opcode == IoOpcode.WRITE_ZEROES.code()) {
            region.fill((byte) 0);
            return Response.ok(0);
        }
        return Response.error(StatusCode.INVALID_OPCODE);
    }
}
