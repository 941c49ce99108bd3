package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.io.ReadCommand;
import io.nvmf4j.protocol.io.WriteCommand;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The in-place Read/Write encoding of the data path writes the bytes Linux's {@code struct nvme_rw_command} holds
 * (opcode at 0, nsid __le32 at 4, slba __le64 at 40, length __le16 (0's based) at 48, control __le16 at 50 with
 * NVME_RW_FUA = 1 << 14), and the same bytes as the protocol module's command builders.
 */
class ReadWriteEncodingTest {

    private static byte[] bytes(SubmissionQueueEntry sqe) {
        return sqe.segment().toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void readWithFuaMatchesTheNvmeRwCommandLayout() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IoRequest.encodeReadWrite(sqe, true, 0x0102_0304L, 0x1122_3344_5566_7788L, 8, true);
        String hex = "02000000" + "04030201" + "00".repeat(32) + "8877665544332211" + "0700" + "0040"
                + "00".repeat(12);
        assertArrayEquals(HexFormat.of().parseHex(hex), bytes(sqe));
        SubmissionQueueEntry expected = SubmissionQueueEntry.allocate();
        ReadCommand.create(expected, 0x0102_0304L, 0x1122_3344_5566_7788L, 8).fua(true);
        assertArrayEquals(bytes(expected), bytes(sqe));
    }

    @Test
    void writeOfTheLargestBlockCountMatchesTheProtocolBuilder() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        IoRequest.encodeReadWrite(sqe, false, 1, 4096, 65536, false);
        SubmissionQueueEntry expected = SubmissionQueueEntry.allocate();
        WriteCommand.create(expected, 1, 4096, 65536);
        assertArrayEquals(bytes(expected), bytes(sqe));
    }
}
