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

    @Test
    void effectsLogListsExactlyTheCommandsNvmf4jExecutes() {
        MemorySegment page = host.buffer(4096);
        page.fill((byte) 0xEE);
        assertEquals(0, getLogPage(0x05, 0, 0, page).cqe().statusField());
        // acs[opcode] at 4 * opcode: Get Log Page, Identify, Abort, Set/Get Features, AER, Keep Alive
        for (int op : new int[] {0x02, 0x06, 0x08, 0x09, 0x0A, 0x0C, 0x18}) {
            assertEquals("01000000", hex(page, 4 * op, 4 * op + 4), "acs[" + op + "]");
        }
        // iocs[opcode] at 1024 + 4 * opcode: Flush, Read (CSUPP); Write, Write Zeroes, DSM (CSUPP | LBCC)
        assertEquals("01000000", hex(page, 1024, 1028), "Flush");
        assertEquals("03000000", hex(page, 1028, 1032), "Write");
        assertEquals("01000000", hex(page, 1032, 1036), "Read");
        assertEquals("03000000", hex(page, 1056, 1060), "Write Zeroes");
        assertEquals("03000000", hex(page, 1060, 1064), "Dataset Management");
        // Reservation Register, Report, Acquire, Release (CSUPP)
        for (int op : new int[] {0x0D, 0x0E, 0x11, 0x15}) {
            assertEquals("01000000", hex(page, 1024 + 4 * op, 1028 + 4 * op), "iocs[" + op + "]");
        }
        int nonZero = 0;
        for (long i = 0; i < 4096; i += 4) {
            nonZero += Wire.u32(page, i) != 0 ? 1 : 0;
        }
        assertEquals(16, nonZero, "nothing else is supported");
    }

    /** The page against the dispatch: CSUPP exactly where a command is not an Invalid Opcode. */
    @Test
    void effectsLogAgreesWithWhatTheControllerAnswers() {
        io.nvmf4j.protocol.log.CommandEffectsLog log = CommandEffectsLogPage.page();
        for (int op = 0; op < 256; op++) {
            if (op == 0x7F || op == 0x0C) {
                continue; // fabrics commands are not in the page (nvmet neither); AER stays outstanding
            }
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            sqe.opcode(op);
            int field = host.submit(host.admin, sqe).cqe().statusField();
            boolean invalidOpcode = (field & 0x7FF) == 0x001;
            assertEquals(invalidOpcode, (log.admin(op) & 1) == 0,
                    String.format("admin opcode %02xh: status %04x", op, field));
        }
        assertEquals(0, host.connectIo(SUBNQN, 1, 31).cqe().statusField());
        for (int op = 0; op < 256; op++) {
            if (op == 0x7F) {
                continue;
            }
            SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
            sqe.opcode(op).nsid(1);
            int field = host.submit(host.ioQueues.get(1), sqe).cqe().statusField();
            boolean invalidOpcode = (field & 0x7FF) == 0x001;
            assertEquals(invalidOpcode, (log.io(op) & 1) == 0,
                    String.format("I/O opcode %02xh: status %04x", op, field));
        }
    }

    /** CSI 2 (zoned): Invalid I/O Command Set; any other: Invalid Log Page; as nvmet without zoned support. */
    @Test
    void effectsLogForAnotherCommandSetIsRefusedLikeNvmet() {
        assertEquals(0x002C, getLogPage(0x05, 0, 2, host.buffer(4096)).cqe().statusField() & 0x47FF);
        assertEquals(0x0109, getLogPage(0x05, 0, 1, host.buffer(4096)).cqe().statusField() & 0x47FF);
    }
}
