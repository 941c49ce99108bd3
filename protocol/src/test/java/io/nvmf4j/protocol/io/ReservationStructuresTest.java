package io.nvmf4j.protocol.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.AsyncEvent;
import io.nvmf4j.protocol.log.ReservationNotificationLog;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reservation commands and data structures against the byte offsets of Linux {@code include/linux/nvme.h}
 * ({@code struct nvme_reservation_status}, {@code nvme_reservation_status_ext}, {@code nvme_registered_ctrl_ext},
 * {@code nvme_pr_log}, {@code nvmet_pr_register_data}) and SPDK {@code include/spdk/nvme_spec.h}
 * ({@code spdk_nvme_reservation_status_data} 24 B, {@code spdk_nvme_registered_ctrlr_data} 24 B,
 * {@code spdk_nvme_reservation_status_extended_data} 64 B, {@code spdk_nvme_registered_ctrlr_extended_data} 64 B,
 * {@code spdk_nvme_reservation_notification_log} 64 B), written out as hex.
 */
class ReservationStructuresTest {

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void typesAreTheSpecEncodings() {
        assertEquals(List.of(1, 2, 3, 4, 5, 6),
                java.util.Arrays.stream(ReservationType.values()).map(ReservationType::code).toList());
        assertTrue(ReservationType.fromCode(0).isEmpty());
        assertTrue(ReservationType.fromCode(7).isEmpty());
        assertTrue(ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS.allRegistrants());
        assertFalse(ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY.allRegistrants());
        assertEquals(0x0D, IoOpcode.RESERVATION_REGISTER.code());
        assertEquals(0x0E, IoOpcode.RESERVATION_REPORT.code());
        assertEquals(0x11, IoOpcode.RESERVATION_ACQUIRE.code());
        assertEquals(0x15, IoOpcode.RESERVATION_RELEASE.code());
    }

    @Test
    void commandDwordsAsLinuxHostBuildsThem() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        // nvme_pr_register(): cdw10 = (reg_act) | (IEKEY bit 3) | cptpl << 30
        ReservationCommands.createRegister(sqe, 1, ReservationCommands.REGISTER_ACTION_REPLACE, true,
                ReservationCommands.CPTPL_PERSIST);
        assertEquals(0x0D, sqe.opcode());
        assertEquals(0xC000_000A, sqe.cdw10());
        assertEquals(2, ReservationCommands.action(sqe));
        assertTrue(ReservationCommands.ignoreExistingKey(sqe));
        assertEquals(3, ReservationCommands.cptpl(sqe));
        // nvme_pr_reserve(): cdw10 = rtype << 8 | action
        ReservationCommands.createAcquire(sqe, 1, ReservationCommands.ACQUIRE_ACTION_PREEMPT_AND_ABORT, false, 6);
        assertEquals(0x0000_0602, sqe.cdw10());
        assertEquals(6, ReservationCommands.rtype(sqe));
        ReservationCommands.createReport(sqe, 1, 4096, true);
        assertEquals(1023, sqe.cdw10());
        assertEquals(1, sqe.cdw11());
        assertEquals(4096, ReservationCommands.reportLength(sqe));
        sqe.cdw(10, -1);
        assertEquals(1L << 34, ReservationCommands.reportLength(sqe), "NUMD FFFFFFFFh is 16 GiB: callers bound it");
    }

    @Test
    void registerDataIsCrkeyThenNrkey() {
        MemorySegment d = MemorySegment.ofArray(new byte[16]);
        new ReservationKeys(0x1122334455667788L, 0x0102030405060708L).encode(d);
        assertArrayEquals(hex("8877665544332211 0807060504030201"), bytes(d));
        assertEquals(new ReservationKeys(0x1122334455667788L, 0x0102030405060708L), ReservationKeys.decode(d));
        assertThrows(MalformedStructureException.class,
                () -> ReservationKeys.decode(MemorySegment.ofArray(new byte[15])));
        assertEquals(0x1122334455667788L, ReservationKeys.decodeRelease(d.asSlice(0, 8)).currentKey());
    }

    @Test
    void statusDataStructureMatchesNvmeReservationStatus() {
        ReservationStatus st = new ReservationStatus(0x01020304L, 3, 2, true, List.of(
                new ReservationStatus.RegisteredController(0x0011, true, hex("a0a1a2a3a4a5a6a7"), 0xAAL),
                new ReservationStatus.RegisteredController(0x0022, false, hex("b0b1b2b3b4b5b6b7"), 0xBBL)));
        MemorySegment d = MemorySegment.ofArray(new byte[24 + 48]);
        st.encode(d, false);
        assertArrayEquals(hex(
                // gen      rtype regctl resv5 ptpls resv10[14]
                "04030201 03 0200 0000 01 0000000000000000000000000000"
                // cntlid rcsts resv3[5]     hostid            rkey
                + "1100 01 0000000000 a0a1a2a3a4a5a6a7 aa00000000000000"
                + "2200 00 0000000000 b0b1b2b3b4b5b6b7 bb00000000000000"), bytes(d));
        assertEquals(st, ReservationStatus.decode(d, false));
    }

    @Test
    void extendedStatusMatchesNvmeReservationStatusExt() {
        byte[] hostId = hex("000102030405060708090a0b0c0d0e0f");
        ReservationStatus st = new ReservationStatus(7, 6, 3, false, List.of(
                new ReservationStatus.RegisteredController(0xFFFF, true, hostId, 0x1234L)));
        MemorySegment d = MemorySegment.ofArray(new byte[64 + 64]);
        st.encode(d, true);
        byte[] expected = new byte[128];
        expected[0] = 7;           // gen
        expected[4] = 6;           // rtype
        expected[5] = 3;           // regctl: every registrant, though only one entry fits
        expected[64] = (byte) 0xFF; // regctl_eds[0].cntlid
        expected[65] = (byte) 0xFF;
        expected[66] = 1;          // rcsts
        expected[72] = 0x34;       // rkey at 8
        expected[73] = 0x12;
        System.arraycopy(hostId, 0, expected, 80, 16); // hostid at 16
        assertArrayEquals(expected, bytes(d));
        ReservationStatus back = ReservationStatus.decode(d, true);
        assertEquals(3, back.registeredControllers());
        assertEquals(st.controllers(), back.controllers());
        assertEquals(64, ReservationStatus.EXTENDED_HEADER_SIZE);
        assertEquals(64, ReservationStatus.EXTENDED_ENTRY_SIZE);
    }

    @Test
    void notificationLogMatchesNvmePrLog() {
        MemorySegment d = MemorySegment.ofArray(new byte[64]);
        new ReservationNotificationLog(0x0102, ReservationNotificationLog.TYPE_RESERVATION_PREEMPTED, 2, 9)
                .encode(d);
        byte[] expected = new byte[64];
        expected[0] = 0x02;
        expected[1] = 0x01; // count
        expected[8] = 3;    // type
        expected[9] = 2;    // nr_pages
        expected[12] = 9;   // nsid
        assertArrayEquals(expected, bytes(d));
        assertEquals(new ReservationNotificationLog(0x0102, 3, 2, 9), ReservationNotificationLog.decode(d));
    }

    @Test
    void reservationAndAnaEventsAsNvmetRaisesThem() {
        // nvmet_add_async_event(ctrl, NVME_AER_CSS (6), NVME_AEN_RESV_LOG_PAGE_AVALIABLE (0), NVME_LOG_RESERVATION)
        assertEquals(0x0080_0006, AsyncEvent.reservationLogAvailable().toDw0());
        // NVME_AER_NOTICE (2), NVME_AER_NOTICE_ANA (3), NVME_LOG_ANA (0Ch)
        assertEquals(0x000C_0302, AsyncEvent.anaChanged().toDw0());
    }
}
