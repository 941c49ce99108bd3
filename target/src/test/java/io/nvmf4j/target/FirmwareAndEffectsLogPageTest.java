package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Firmware Slot Information (03h) and Commands Supported and Effects (05h), the pages Linux nvmet answers
 * (nvmet_execute_get_log_page()) and SPDK's identify asks for; byte offsets are those of {@code struct
 * nvme_fw_slot_info_log} and {@code struct nvme_effects_log} in include/linux/nvme.h.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FirmwareAndEffectsLogPageTest {

    private final TargetFixture fx = new TargetFixture();
    private final LoopHost host = fx.host().connectAndEnable(SUBNQN);

    @AfterEach
    void close() {
        fx.close();
    }

    private Request getLogPage(int lid, long offset, int csi, MemorySegment data) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        GetLogPageCommand.create(sqe, lid, 0xFFFF_FFFFL, data.byteSize());
        Wire.u64(sqe.segment(), 48, offset); // LPOL/LPOU as a host sends them, aligned or not
        sqe.cdw(14, csi << 24);
        return host.submit(host.admin, sqe, data);
    }

    private static String hex(MemorySegment s, int from, int to) {
        return HexFormat.of().formatHex(s.asSlice(from, to - from).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void firmwareSlotLogSaysSlot1IsActiveAndHoldsTheIdentifyControllerRevision() {
        MemorySegment page = host.buffer(512);
        page.fill((byte) 0xEE);
        assertEquals(0, getLogPage(0x03, 0, 0, page).cqe().statusField());
        assertEquals(1, Wire.u8(page, 0), "AFI: active slot 1, no slot for the next reset");
        String fr = fx.subsystem.firmwareRevision();
        StringBuilder padded = new StringBuilder(fr);
        while (padded.length() < 8) {
            padded.append(' ');
        }
        assertEquals(HexFormat.of().formatHex(padded.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII)),
                hex(page, 8, 16), "FRS1 = FR, space padded");
        assertTrue(Wire.isZero(page, 1, 7) && Wire.isZero(page, 16, 512 - 16), "everything else zero");
    }

    /** nvmet answers whatever length NUMD asks for (nvmet_execute_get_log_page_noop()): so does nvmf4j. */
    @Test
    void firmwareSlotLogAnswersAnyLengthAndHonoursTheOffset() {
        MemorySegment head = host.buffer(4);
        assertEquals(0, getLogPage(0x03, 0, 0, head).cqe().statusField());
        assertEquals(1, Wire.u8(head, 0));
        MemorySegment frs = host.buffer(8);
        assertEquals(0, getLogPage(0x03, 8, 0, frs).cqe().statusField());
        assertEquals(fx.subsystem.firmwareRevision(), new String(frs.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                java.nio.charset.StandardCharsets.US_ASCII).trim());
        MemorySegment big = host.buffer(1024);
        big.fill((byte) 0xEE);
        assertEquals(0, getLogPage(0x03, 0, 0, big).cqe().statusField());
        assertTrue(Wire.isZero(big, 512, 512), "zeroes past the 512-byte page");
        Request unaligned = getLogPage(0x03, 2, 0, host.buffer(4));
        assertEquals(0x4002, unaligned.cqe().statusField() & 0x47FF, "offset not a multiple of 4: INVALID_FIELD|DNR");
        assertEquals(0x4002, getLogPage(0x03, 516, 0, host.buffer(4)).cqe().statusField() & 0x47FF,
                "offset beyond the page");
    }
}
