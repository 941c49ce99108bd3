package io.nvmf4j.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatusTest {

    @Test
    void lbaRangeWithDnrIsLinuxValue4080AndWireWord8100() {
        Status s = StatusCode.LBA_RANGE.withDnr();
        assertEquals(0x4080, s.toField());
        assertEquals(0x8100, s.toStatusWord(false));
        assertEquals(0x8101, s.toStatusWord(true));
    }

    @Test
    void statusBitsSitWhereSpdkStatusBitfieldPutsThem() {
        // struct spdk_nvme_status { p:1; sc:8; sct:3; crd:2; m:1; dnr:1; } -> word bits 0, 8:1, 11:9, 13:12, 14, 15
        assertEquals(0x0001 << 1, new Status(0, 0x01, false, false, 0).toStatusWord(false));
        assertEquals(0x00FF << 1, new Status(0, 0xFF, false, false, 0).toStatusWord(false));
        assertEquals(0x0E00, new Status(7, 0, false, false, 0).toStatusWord(false));
        assertEquals(0x3000, new Status(0, 0, false, false, 3).toStatusWord(false));
        assertEquals(0x4000, new Status(0, 0, false, true, 0).toStatusWord(false));
        assertEquals(0x8000, new Status(0, 0, true, false, 0).toStatusWord(false));
        assertEquals(0xFFFE, new Status(7, 0xFF, true, true, 3).toStatusWord(false));
    }

    @Test
    void decodingAWireWordIgnoresThePhaseTag() {
        Status s = Status.fromStatusWord(0x8101);
        assertEquals(new Status(0, 0x80, true, false, 0), s);
        assertTrue(s.is(StatusCode.LBA_RANGE));
        assertEquals("LBA_RANGE|DNR (sct 0h sc 80h): LBA Out of Range", s.toString());
    }

    @Test
    void completionEntryCarriesTheStatusInBytes14And15() {
        CompletionQueueEntry cqe = CompletionQueueEntry.allocate();
        cqe.statusWord(1); // phase set beforehand must survive
        cqe.statusField(StatusCode.CONNECT_INVALID_PARAM.withDnr().toField());
        // field 0x4182 -> word (0x4182 << 1) | 1 = 0x8305, little-endian 05 83
        assertEquals(Hex.norm(Hex.zeros(14) + "0583"), Hex.of(cqe.segment()));
        assertEquals(StatusCode.CONNECT_INVALID_PARAM,
                StatusCode.lookup(Status.fromField(cqe.statusField()), true).orElseThrow());
    }

    @Test
    void namedCodesEqualTheLinuxNvmeScConstants() {
        // values copied from include/linux/nvme.h NVME_SC_* (sct << 8 | sc)
        Map<StatusCode, Integer> linux = Map.ofEntries(
                Map.entry(StatusCode.SUCCESS, 0x0), Map.entry(StatusCode.INVALID_OPCODE, 0x1),
                Map.entry(StatusCode.INVALID_FIELD, 0x2), Map.entry(StatusCode.CMDID_CONFLICT, 0x3),
                Map.entry(StatusCode.DATA_XFER_ERROR, 0x4), Map.entry(StatusCode.POWER_LOSS, 0x5),
                Map.entry(StatusCode.INTERNAL, 0x6), Map.entry(StatusCode.ABORT_REQ, 0x7),
                Map.entry(StatusCode.ABORT_QUEUE, 0x8), Map.entry(StatusCode.FUSED_FAIL, 0x9),
                Map.entry(StatusCode.FUSED_MISSING, 0xa), Map.entry(StatusCode.INVALID_NS, 0xb),
                Map.entry(StatusCode.CMD_SEQ_ERROR, 0xc), Map.entry(StatusCode.SGL_INVALID_LAST, 0xd),
                Map.entry(StatusCode.SGL_INVALID_COUNT, 0xe), Map.entry(StatusCode.SGL_INVALID_DATA, 0xf),
                Map.entry(StatusCode.SGL_INVALID_METADATA, 0x10), Map.entry(StatusCode.SGL_INVALID_TYPE, 0x11),
                Map.entry(StatusCode.SGL_INVALID_OFFSET, 0x16), Map.entry(StatusCode.SGL_INVALID_SUBTYPE, 0x17),
                Map.entry(StatusCode.LBA_RANGE, 0x80), Map.entry(StatusCode.CAP_EXCEEDED, 0x81),
                Map.entry(StatusCode.NS_NOT_READY, 0x82), Map.entry(StatusCode.RESERVATION_CONFLICT, 0x83),
                Map.entry(StatusCode.CQ_INVALID, 0x100), Map.entry(StatusCode.QID_INVALID, 0x101),
                Map.entry(StatusCode.QUEUE_SIZE, 0x102), Map.entry(StatusCode.ABORT_LIMIT, 0x103),
                Map.entry(StatusCode.ASYNC_LIMIT, 0x105), Map.entry(StatusCode.INVALID_LOG_PAGE, 0x109),
                Map.entry(StatusCode.INVALID_FORMAT, 0x10a), Map.entry(StatusCode.INVALID_QUEUE, 0x10c),
                Map.entry(StatusCode.FEATURE_NOT_SAVEABLE, 0x10d), Map.entry(StatusCode.FEATURE_NOT_CHANGEABLE, 0x10e),
                Map.entry(StatusCode.FEATURE_NOT_PER_NS, 0x10f), Map.entry(StatusCode.BAD_ATTRIBUTES, 0x180),
                Map.entry(StatusCode.INVALID_PI, 0x181), Map.entry(StatusCode.READ_ONLY, 0x182),
                Map.entry(StatusCode.CONNECT_FORMAT, 0x180), Map.entry(StatusCode.CONNECT_CTRL_BUSY, 0x181),
                Map.entry(StatusCode.CONNECT_INVALID_PARAM, 0x182), Map.entry(StatusCode.CONNECT_RESTART_DISC, 0x183),
                Map.entry(StatusCode.CONNECT_INVALID_HOST, 0x184), Map.entry(StatusCode.DISCOVERY_RESTART, 0x190),
                Map.entry(StatusCode.AUTH_REQUIRED, 0x191), Map.entry(StatusCode.WRITE_FAULT, 0x280),
                Map.entry(StatusCode.READ_ERROR, 0x281), Map.entry(StatusCode.GUARD_CHECK, 0x282),
                Map.entry(StatusCode.APPTAG_CHECK, 0x283), Map.entry(StatusCode.REFTAG_CHECK, 0x284),
                Map.entry(StatusCode.COMPARE_FAILED, 0x285), Map.entry(StatusCode.ACCESS_DENIED, 0x286),
                Map.entry(StatusCode.UNWRITTEN_BLOCK, 0x287), Map.entry(StatusCode.ANA_PERSISTENT_LOSS, 0x301),
                Map.entry(StatusCode.ANA_INACCESSIBLE, 0x302), Map.entry(StatusCode.ANA_TRANSITION, 0x303),
                Map.entry(StatusCode.HOST_PATH_ERROR, 0x370), Map.entry(StatusCode.HOST_ABORTED_CMD, 0x371));
        linux.forEach((code, value) -> assertEquals((int) value, code.code(), code.name()));
        assertEquals(0x4000, Status.DNR_BIT); // NVME_SC_DNR
    }

    @Test
    void overlappingCommandSpecificCodesResolveByCommandKind() {
        assertEquals(StatusCode.CONNECT_FORMAT, StatusCode.lookup(1, 0x80, true).orElseThrow());
        assertEquals(StatusCode.BAD_ATTRIBUTES, StatusCode.lookup(1, 0x80, false).orElseThrow());
        assertEquals(StatusCode.CONNECT_CTRL_BUSY, StatusCode.lookup(1, 0x81, true).orElseThrow());
        // generic codes are the same for fabrics commands
        assertEquals(StatusCode.INVALID_FIELD, StatusCode.lookup(0, 0x02, true).orElseThrow());
        // a code only fabrics defines is still found for a non-fabrics lookup
        assertEquals(StatusCode.DISCOVERY_RESTART, StatusCode.lookup(1, 0x90, false).orElseThrow());
        assertFalse(StatusCode.lookup(5, 0x12, false).isPresent());
    }

    @Test
    void everyNamedCodeIsUniqueWithinItsContext() {
        Set<String> seen = new HashSet<>();
        for (StatusCode c : StatusCode.values()) {
            assertTrue(seen.add(c.type() + "/" + c.sc() + "/" + c.isFabrics()), "duplicate " + c);
            assertEquals(c, StatusCode.lookup(c.status(), c.isFabrics()).orElseThrow());
        }
    }

    @Test
    void humanNamesReadLikeNvmeCli() {
        assertEquals("INVALID_FIELD: Invalid Field in Command", StatusCode.INVALID_FIELD.humanName());
        assertEquals("CONNECT_INVALID_HOST: Connect Invalid Host", StatusCode.CONNECT_INVALID_HOST.humanName());
        assertEquals("CONNECT_CTRL_BUSY|DNR (sct 1h sc 81h): Controller Busy",
                StatusCode.describe(StatusCode.CONNECT_CTRL_BUSY.withDnr(), true));
        assertEquals("UNKNOWN|MORE|CRD2 (sct 5h sc 12h)", new Status(5, 0x12, false, true, 2).toString());
    }

    @Test
    void statusTypesFollowTheSpecValues() {
        assertEquals(0, StatusCodeType.GENERIC.value());
        assertEquals(1, StatusCodeType.COMMAND_SPECIFIC.value());
        assertEquals(2, StatusCodeType.MEDIA_AND_DATA_INTEGRITY.value());
        assertEquals(3, StatusCodeType.PATH_RELATED.value());
        assertEquals(7, StatusCodeType.VENDOR_SPECIFIC.value());
        assertFalse(StatusCodeType.fromValue(4).isPresent());
        assertEquals(StatusCodeType.PATH_RELATED, Status.fromField(0x370).type().orElseThrow());
    }

    @Test
    void outOfRangeFieldsAreRefusedWithTheirName() {
        assertEquals("SC 256 does not fit in 8 bits (0..255)",
                assertThrows(IllegalArgumentException.class, () -> new Status(0, 256, false, false, 0)).getMessage());
        assertEquals("SCT 8 does not fit in 3 bits (0..7)",
                assertThrows(IllegalArgumentException.class, () -> new Status(8, 0, false, false, 0)).getMessage());
        assertEquals("CRD 4 does not fit in 2 bits (0..3)",
                assertThrows(IllegalArgumentException.class, () -> new Status(0, 0, false, false, 4)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Status.fromField(0x8100))
                .getMessage().contains("fromStatusWord"));
    }
}
